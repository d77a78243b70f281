// Package evolve is Quire's controlled self-improvement (issue 20, seed 001
// §9): it observes finished runs and records signals (denied calls and
// their reasons, undone changes, corrections in the next user message,
// searches that found nothing again, preferences said again), keeps the
// candidate improvements — a prompt fragment, a skill, a workflow — as
// immutable versions with their origin, and carries each through
// evaluation, the user's approval, scoped activation, monitoring and
// rollback.
//
// The log is the truth: signals are evolution.signal events in the session
// of the run they were read from, and every candidate step is an event in
// one hidden session of kind evolution (kernel/event/evolution.go). The
// state here is a fold over those events, re-read on demand.
//
// Hard rules, by construction: it never changes code; a candidate's
// artifact has no field for a profile, grants, effects, tools or approvals
// and is decoded refusing unknown fields; nothing is activated without the
// user's approval after an evaluation, activating a version over another
// names it, and every activation is rolled back by one event.
//
// It offers the runtime two facets: the observer (LifecycleSubscriber) and
// the active fragments (ContextContributor, so they are in the run's
// context.text and `quire replay -request N` rebuilds what was active).
//
// It must never import kernel/store, kernel/runtime, kernel/core, a host,
// tools/, a provider client, Wails or the composition root: it reaches the
// log through the small ports declared here.
package evolve
