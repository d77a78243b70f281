package prompt

// Base is Quire's own system text, the fragments every run starts from:
// who the assistant is (Identity) and where it runs (Deployment). Other
// parts add theirs (tools, working memory) to the assembler it returns.
func Base() *Assembler {
	a := New()
	a.Register(Fragment{Name: "identity", Priority: Identity,
		Text: "You are Quire, an assistant that helps the user organise their notes. Be concise and concrete."})
	a.Register(Fragment{Name: "deployment", Priority: Deployment,
		Text: "You run entirely on the user's own computer with a local model; nothing leaves it. " +
			"Before you change, move or rename a note, the user approves it."})
	return a
}
