package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

// A slot table of 4,096 slots over 100 nodes: an owner lookup is one digest and one array read.
func ExampleNewSlotTable() {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("node-%d", i)
	}
	p, err := hrwhash.New(ids...)
	if err != nil {
		panic(err)
	}
	table, err := hrwhash.NewSlotTable(p, 4096, hrwhash.WithOverloadPPM(50_000))
	if err != nil {
		panic(err)
	}
	slot := table.Slot("user:42")
	a := table.Owner("user:42")
	b, _ := table.OwnerOfSlot(uint64(slot))
	fmt.Println(a == b)
	// No node holds more than ceil(1.05 * 4096 / 100) = 44 slots.
	counts, _ := table.SlotCounts()
	most := 0
	for _, c := range counts {
		most = max(most, c)
	}
	fmt.Println(most <= 44)

	// One more node, computed from this table: the table a fresh build over the new
	// membership gives.
	grown, err := table.WithNode(hrwhash.Node{ID: "node-100"})
	if err != nil {
		panic(err)
	}
	fresh, err := hrwhash.NewSlotTable(grown.Placement(), 4096, hrwhash.WithOverloadPPM(50_000))
	if err != nil {
		panic(err)
	}
	a1, _ := grown.Assignments()
	a2, _ := fresh.Assignments()
	same := len(a1) == len(a2)
	for s := range a1 {
		same = same && a1[s] == a2[s]
	}
	fmt.Println(same)
	// Output:
	// true
	// true
	// true
}
