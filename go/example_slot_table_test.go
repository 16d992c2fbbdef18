package hrwhash_test

import (
	"fmt"

	"github.com/hrwhash/hrwhash/go"
)

// A levelled slot table of 4,096 slots over 100 nodes: an owner lookup is one digest and one
// array read. A change moves only the changed node's slots, so the table depends on the order
// of the changes; clients share it as its document and compare fingerprints.
func ExampleNewSlotTable() {
	ids := make([]string, 100)
	for i := range ids {
		ids[i] = fmt.Sprintf("node-%d", i)
	}
	p, err := hrwhash.New(ids...)
	if err != nil {
		panic(err)
	}
	table, err := hrwhash.NewSlotTable(p, 4096, hrwhash.WithEpoch(1))
	if err != nil {
		panic(err)
	}
	before := table.Assignments()
	if err := table.AddNode(hrwhash.Node{ID: "node-100"}); err != nil {
		panic(err)
	}
	moved := 0
	for s, owner := range table.Assignments() {
		if owner != before[s] {
			moved++
		}
	}
	// The new node took its share, 4096 / 101 rounded, and nothing else moved.
	fmt.Println(moved, table.SlotCounts()[100])

	doc, err := table.ToJSON()
	if err != nil {
		panic(err)
	}
	shared, err := hrwhash.SlotTableFromJSON(doc)
	if err != nil {
		panic(err)
	}
	// The document lists the first nodes by id, so indices may differ from the builder's: the
	// owner's id does not.
	a, _ := table.Placement().NodeID(table.Owner("user:42"))
	b, _ := shared.Placement().NodeID(shared.Owner("user:42"))
	fmt.Println(shared.Fingerprint() == table.Fingerprint(), a == b)
	// Output:
	// 41 41
	// true true
}

// A ranked slot table with an overload bound depends only on the membership: a client that
// holds only the view builds the same table.
func ExampleRanked() {
	p, err := hrwhash.New("a", "b", "c", "d")
	if err != nil {
		panic(err)
	}
	table, err := hrwhash.NewSlotTable(p, 1024, hrwhash.WithOverloadPPM(50_000))
	if err != nil {
		panic(err)
	}
	if err := table.RemoveNode("b"); err != nil {
		panic(err)
	}
	// No node holds more than ceil(1.05 * 1024 / 3) = 359 slots.
	most := 0
	for _, c := range table.SlotCounts() {
		most = max(most, c)
	}
	fmt.Println(table.Mode(), most <= 359)

	view, err := table.View()
	if err != nil {
		panic(err)
	}
	fromView, err := hrwhash.NewSlotTable(view.Placement(), 1024, hrwhash.WithOverloadPPM(50_000))
	if err != nil {
		panic(err)
	}
	fmt.Println(fromView.Fingerprint() == table.Fingerprint())
	// Output:
	// ranked true
	// true
}
