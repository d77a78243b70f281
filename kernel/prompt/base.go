package prompt

import "context"

// Base is Quire's own system text, the fragments every run starts from:
// who the assistant is (Identity), where it runs (Deployment) and what the
// user wrote about themselves in Settings (AboutUserFragment, a deployment
// fragment too). Other parts add theirs (tools, working memory) to the
// assembler it returns.
func Base() *Assembler {
	a := New()
	a.Register(Fragment{Name: "identity", Priority: Identity,
		Text: "You are Quire, an assistant that helps the user organise their notes. Be concise and concrete."})
	a.Register(Fragment{Name: "deployment", Priority: Deployment,
		Text: "You run entirely on the user's own computer with a local model; nothing leaves it. " +
			"Before you change, move or rename a note, the user approves it."})
	a.Register(AboutUserFragment())
	return a
}

// AboutUserFragment is the user's "what Quire should know about you" as a
// deployment fragment (priority 0, after Quire's own deployment text): the
// text comes from the assembly's context (WithAboutUser), so it is the one
// the run froze; empty, the fragment is left out.
func AboutUserFragment() Fragment {
	return Fragment{Name: "about-you", Priority: Deployment, Dynamic: func(ctx context.Context) (string, error) {
		text := AboutUser(ctx)
		if text == "" {
			return "", nil
		}
		return "What the user wants you to know about them (they wrote this in Settings):\n" + text, nil
	}}
}
