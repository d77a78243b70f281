package main

import (
	"reflect"
	"testing"

	"quire/host"
	"quire/host/window"
)

// TestAppBindsEveryMethodOfTheWindowHost: Wails binds App's method set, in
// which the window host's exported methods are promoted. A field of App
// named like one of them (the embedded host's own name included) would
// hide that method, and the page would find it missing: above all Op,
// through which the page calls every operation, and each method an
// operation names as the one that asks first (host.Op.Confirm).
func TestAppBindsEveryMethodOfTheWindowHost(t *testing.T) {
	h, app := reflect.TypeFor[*window.Host](), reflect.TypeFor[*App]()
	need := []string{"Handshake", "Op"}
	for _, op := range host.NewWire().Ops() {
		if op.Confirm != "" {
			need = append(need, op.Confirm)
		}
	}
	for _, name := range need {
		if _, ok := app.MethodByName(name); !ok {
			t.Errorf("App does not bind %s, which the page calls", name)
		}
	}
	for m := range h.Methods() {
		if _, ok := app.MethodByName(m.Name); !ok {
			t.Errorf("App does not bind %s: a field of App is named like it", m.Name)
		}
	}
	if app.NumMethod() != h.NumMethod() {
		t.Errorf("App binds %d methods, the window host has %d: App's own belong in host/window", app.NumMethod(), h.NumMethod())
	}
}
