package secrets

// keywordMatcher finds which of a set of keywords occur in a text, ASCII
// case-insensitively, in one pass: an Aho-Corasick automaton compiled to a
// table of transitions over byte classes (every byte that appears in no
// keyword is one class; an upper-case ASCII letter is its lower-case
// class). A text is read once whatever the number of keywords (about 400
// for the rule set), where a strings.Contains per keyword reads it once
// per keyword.
type keywordMatcher struct {
	class   [256]uint8
	classes int
	// next[base+class] is the state after reading a byte in the state
	// whose row starts at base; a state is kept as its row's base
	// (state*classes), with outBit set when keywords end there, so that
	// reading a byte is one add and one load.
	next []int32
	// out[state] lists the keywords that end at state (suffix links
	// followed), nil for most states.
	out [][]int32
}

func newKeywordMatcher(keywords []string) *keywordMatcher {
	m := &keywordMatcher{}
	// Byte classes: 0 for every byte no keyword holds.
	for _, k := range keywords {
		for i := 0; i < len(k); i++ {
			c := lower(k[i])
			if m.class[c] == 0 {
				m.classes++
				m.class[c] = uint8(m.classes)
			}
		}
	}
	m.classes++
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	// The trie.
	trie := [][]int32{make([]int32, m.classes)}
	m.out = [][]int32{nil}
	for ki, k := range keywords {
		s := int32(0)
		for i := 0; i < len(k); i++ {
			c := m.class[lower(k[i])]
			if trie[s][c] == 0 {
				trie = append(trie, make([]int32, m.classes))
				m.out = append(m.out, nil)
				trie[s][c] = int32(len(trie) - 1)
			}
			s = trie[s][c]
		}
		m.out[s] = append(m.out[s], int32(ki))
	}
	// Breadth-first: fail links, and the goto function completed into a
	// transition table.
	fail := make([]int32, len(trie))
	queue := make([]int32, 0, len(trie))
	for c := range m.classes {
		if t := trie[0][c]; t != 0 {
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.out[s] = append(m.out[s], m.out[fail[s]]...)
		for c := range m.classes {
			t := trie[s][c]
			if t == 0 {
				trie[s][c] = trie[fail[s]][c]
				continue
			}
			fail[t] = trie[fail[s]][c]
			queue = append(queue, t)
		}
	}
	m.next = make([]int32, len(trie)*m.classes)
	for s, row := range trie {
		for c, t := range row {
			v := t * int32(m.classes)
			if m.out[t] != nil {
				v |= outBit
			}
			m.next[s*m.classes+c] = v
		}
	}
	return m
}

// outBit marks, in a transition, a state where keywords end.
const outBit = 1 << 30

// match calls found with the index of each keyword at each place it ends
// in text (end is the byte after it).
func (m *keywordMatcher) match(text string, found func(keyword int32, end int)) {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		s = m.next[s+int32(m.class[text[i]])]
		if s&outBit != 0 {
			s &^= outBit
			for _, k := range m.out[s/int32(m.classes)] {
				found(k, i+1)
			}
		}
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
