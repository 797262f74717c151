package aider

// Writes returns the ends of the blocks of a chat history (where aider's
// writes end, as the reader infers them), for the growth tests.
func Writes(data []byte) []int {
	runs, _, _ := split(data)
	var out []int
	for _, r := range runs {
		for _, b := range r.blocks {
			out = append(out, b.end)
		}
	}
	return out
}
