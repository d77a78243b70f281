package ollama

// PullFailure exposes the classification of a pull's error lines, whose
// real texts (DNS, TLS, routing failures) the fake server cannot all make.
func PullFailure(err error, model string) error { return New(nil, nil).pullFailure(err, model) }
