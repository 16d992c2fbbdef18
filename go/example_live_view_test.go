package hrwhash_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/hrwhash/hrwhash/go"
)

func ExampleLiveView() {
	five, _ := hrwhash.New("cache-a", "cache-b", "cache-c", "cache-d", "cache-e")
	six, _ := hrwhash.New("cache-a", "cache-b", "cache-c", "cache-d", "cache-e", "cache-f")
	v1, _ := hrwhash.NewView(five, 1)
	v2, _ := hrwhash.NewView(six, 2)

	// A source (go/viewsync) makes the live view from its first read and feeds it the rest.
	live, _ := hrwhash.NewLiveView(v1, hrwhash.WithMoveDeadline(10*time.Minute))
	live.OnChange(func(t *hrwhash.Transition) {
		// Copy or warm exactly the keys that move (t.Plan, t.PlanKeys), then end the move.
		fmt.Printf("expected share moved: %.4f (1/6)\n", t.ExpectedMoved())
	})
	out, _ := live.Update(v2)
	fmt.Println(out, "epoch", live.Epoch(), "moving:", live.Moving())

	// During the move: write to Write, read from Read on a miss.
	r := live.Route("user:42")
	fmt.Println("write to the owner:", r.Write == live.Owner("user:42"), "moved:", r.Moved == (r.Read != r.Write))
	live.FinishMove()

	// An older epoch, or the same epoch with other members, is refused and changes nothing.
	_, err := live.Update(v1)
	fmt.Println(errors.Is(err, hrwhash.ErrStaleView), err)
	conflict, _ := hrwhash.NewView(five, 2)
	_, err = live.Update(conflict)
	fmt.Println(errors.Is(err, hrwhash.ErrViewConflict), "epoch", live.Epoch())
	fmt.Println("last error:", live.LastError() != nil)
	// Output:
	// expected share moved: 0.1667 (1/6)
	// applied epoch 2 moving: true
	// write to the owner: true moved: true
	// true hrwhash: stale view: epoch 1 is below the live view's epoch 2
	// true epoch 2
	// last error: true
}
