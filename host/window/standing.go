package window

import (
	"quire/host"
	"quire/kernel/protocol"
)

// The Standing tasks panel's bound methods (window.go.main.App): the same
// port and sentences as `quire serve`'s /api/standing. A firing's batch is
// reviewed through the batches' methods, with the same native confirmation.

func (h *Host) standingPort() (host.Standing, error) { return partOf(h, h.standing, errNoStandingHere) }

// StandingTasks lists every standing task with its last and next firing.
func (h *Host) StandingTasks() ([]protocol.StandingSummary, error) {
	s, err := h.standingPort()
	if err != nil {
		return nil, err
	}
	return s.List(h.callCtx())
}

// AddStandingTask stores a new standing task.
func (h *Host) AddStandingTask(t protocol.StandingTask) (protocol.StandingSummary, error) {
	s, err := h.standingPort()
	if err != nil {
		return protocol.StandingSummary{}, err
	}
	return s.Add(h.callCtx(), t)
}

// EditStandingTask replaces a standing task's fields, at once.
func (h *Host) EditStandingTask(t protocol.StandingTask) (protocol.StandingSummary, error) {
	s, err := h.standingPort()
	if err != nil {
		return protocol.StandingSummary{}, err
	}
	return s.Edit(h.callCtx(), t)
}

// PauseStandingTask pauses (true) or resumes (false) a standing task.
func (h *Host) PauseStandingTask(id string, paused bool) (protocol.StandingSummary, error) {
	s, err := h.standingPort()
	if err != nil {
		return protocol.StandingSummary{}, err
	}
	return s.SetPaused(h.callCtx(), id, paused)
}

// RemoveStandingTask deletes a standing task; its batches stay for review.
func (h *Host) RemoveStandingTask(id string) error {
	s, err := h.standingPort()
	if err != nil {
		return err
	}
	return s.Remove(h.callCtx(), id)
}

// RunStandingTask fires a standing task now; its batch waits for review.
func (h *Host) RunStandingTask(id string) (protocol.StandingFiring, error) {
	s, err := h.standingPort()
	if err != nil {
		return protocol.StandingFiring{}, err
	}
	return s.RunNow(h.callCtx(), id)
}
