package window

import (
	"quire/host"
	"quire/kernel/protocol"
)

// The inspector ("what the model saw"): a session's model calls, read
// from its log.

func (h *Host) callsPort() (host.Calls, error) {
	if err := h.ready(); err != nil {
		return nil, err
	}
	if h.calls == nil {
		return nil, errNoCallsHere
	}
	return h.calls, nil
}

// Calls lists a session's model calls (only run's when run is not "").
func (h *Host) Calls(session, run string) (protocol.CallList, error) {
	c, err := h.callsPort()
	if err != nil {
		return protocol.CallList{}, err
	}
	list, err := c.Calls(h.callCtx(), session, run)
	if list.Calls == nil {
		list.Calls = []protocol.CallSummary{}
	}
	return list, err
}

// Call is a session's nth model call in full (its texts bounded).
func (h *Host) Call(session string, n int) (protocol.Call, error) {
	c, err := h.callsPort()
	if err != nil {
		return protocol.Call{}, err
	}
	return c.Call(h.callCtx(), session, n)
}

// CallRequest is call n's request whole, as `quire replay SESSION -request
// N` prints it: what "Copy request as JSON" copies.
func (h *Host) CallRequest(session string, n int) (string, error) {
	c, err := h.callsPort()
	if err != nil {
		return "", err
	}
	b, err := c.Request(h.callCtx(), session, n)
	return string(b), err
}
