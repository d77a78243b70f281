package main

import (
	"reflect"
	"testing"

	"quire/host/window"
)

// TestAppBindsEveryMethodOfTheWindowHost: Wails binds App's method set, in
// which the window host's exported methods are promoted. A field of App
// named like one of them (the embedded host's own name included) would
// hide that method, and the page would find it missing.
func TestAppBindsEveryMethodOfTheWindowHost(t *testing.T) {
	h, app := reflect.TypeFor[*window.Host](), reflect.TypeFor[*App]()
	if h.NumMethod() < 70 {
		t.Fatalf("the window host has %d exported methods; the page calls more than 70", h.NumMethod())
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
