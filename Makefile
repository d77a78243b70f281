# Quire — two commands on a fresh Debian/Ubuntu machine:
#   make run    installs what is missing, builds the frontend and the app, opens the window
#   make test   installs what the tests need and runs every test
SHELL := /bin/bash
.DEFAULT_GOAL := run

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
GO ?= go
# The Go release every step builds, tests and scans with: the go command
# fetches it from the Go module proxy on first use (a machine's own Go
# ignores go.mod's version for that). Move it when `make vulncheck` names
# a newer release that fixes a called standard-library vulnerability.
# .ci/run and the README name the same release.
export GOTOOLCHAIN := go1.27.3
GOFLAGS_DESKTOP := -tags desktop,production,webkit2_41 -ldflags "-w -s"
APP := build/bin/quire

# Debian packages: to build and run the window, and what the tests add.
RUN_PKGS  := build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev
TEST_PKGS := $(RUN_PKGS) xvfb xauth x11-apps xdotool imagemagick chromium dbus-x11 fonts-dejavu-core tmux

# TestEvalSet (in go test ./...) writes the eval table here; make test prints it.
export QUIRE_EVAL_REPORT := $(CURDIR)/build/eval-report.txt

.PHONY: run test bench bench-desktop build app frontend deps-run deps-test check-tools clean bindings package deb test-package install-test vulncheck

run: deps-run app
	./$(APP)

build app: frontend
	CGO_ENABLED=1 $(GO) build $(GOFLAGS_DESKTOP) -o $(APP) .

# Regenerate frontend/wailsjs from App's bound methods (host/window) (Wails' bindings mode,
# no Wails CLI needed); test/bindings fails while they are stale.
bindings:
	$(GO) test -count=1 ./test/bindings -update

# Install only the packages that are missing (dpkg -s is quick and offline).
define apt_install
	@missing=$$(for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "Installing: $$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
endef

deps-run: check-tools
	$(call apt_install,$(RUN_PKGS))

deps-test: check-tools
	$(call apt_install,$(TEST_PKGS))

check-tools:
	@command -v apt-get >/dev/null || { echo "This Makefile installs packages with apt-get (Debian/Ubuntu); see README for other systems."; exit 1; }
	@command -v node >/dev/null && command -v npm >/dev/null || { \
	  echo "Installing Node.js and npm"; $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq nodejs npm; }
	@node -e 'const [a,b]=process.versions.node.split(".").map(Number); if (a<20||(a===20&&b<19)) { console.error("Node.js "+process.versions.node+" is too old: Quire needs 20.19 or newer (see README)."); process.exit(1) }'
	@command -v $(GO) >/dev/null || { echo "Go is missing: install Go 1.26 or newer from https://go.dev/dl/ (see README)."; exit 1; }

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

frontend: frontend/node_modules/.package-lock.json
	cd frontend && npm run build

# staticcheck, pinned: installed from the Go module proxy on first use, into
# a folder named by its version so a change of version installs anew.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(CURDIR)/build/tools/staticcheck-$(STATICCHECK_VERSION)-$(GOTOOLCHAIN)/staticcheck

$(STATICCHECK):
	GOBIN=$(dir $@) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# govulncheck, offline: the vulnerability database is the golang.org/x/vulndb
# module at a pinned version, fetched through the Go module proxy (the only
# registry CI reaches; vuln.go.dev is not reachable) and indexed locally with
# its own indexdb. buildkit/vulnpolicy decides what fails: a called
# vulnerability that a go.mod move, or a newer Go release (GOTOOLCHAIN
# above), fixes. The tools are built with that release, in folders named
# by it, so a move of GOTOOLCHAIN builds them anew. When the tools or the database
# cannot be fetched the step says SKIPPED and checks nothing; it never fails
# the build for that. Move VULNDB_VERSION forward to see newer advisories.
GOVULNCHECK_VERSION := v1.9.0
VULNDB_VERSION := v0.0.0-20261105234957-e22db6528018
VULNTOOLS := $(CURDIR)/build/tools/govulncheck-$(GOVULNCHECK_VERSION)-$(GOTOOLCHAIN)
VULNDB := $(CURDIR)/build/tools/vulndb-$(VULNDB_VERSION)

$(VULNTOOLS)/govulncheck:
	GOBIN=$(dir $@) $(GO) install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)

$(VULNDB)/index/db.json:
	GOBIN=$(VULNTOOLS) $(GO) install golang.org/x/vulndb/cmd/indexdb@$(VULNDB_VERSION)
	rm -rf $(VULNDB).tmp && $(VULNTOOLS)/indexdb -out $(VULNDB).tmp \
	  -vulns "$$($(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p')/data/osv"
	mv $(VULNDB).tmp $(VULNDB)

vulncheck:
	@mkdir -p build/tools
	@if ! $(MAKE) --no-print-directory -s $(VULNTOOLS)/govulncheck $(VULNDB)/index/db.json >build/tools/vulncheck.log 2>&1; then \
	  echo "govulncheck: SKIPPED — govulncheck or its database could not be fetched from the Go module proxy (build/tools/vulncheck.log says why); nothing was checked"; \
	else \
	  set -o pipefail; $(VULNTOOLS)/govulncheck -db file://$(VULNDB) -format json ./... | $(GO) run ./buildkit/vulnpolicy/cmd/vulnpolicy; \
	fi

# -race also makes the compiler check every unsafe.Pointer conversion
# (-d=checkptr). modernc.org's SQLite is C translated to Go, unsafe pointer
# arithmetic on every row, and that check alone was over half the CPU of the
# SQLite-heavy tests (rag's quality gates 82 s -> 31 s without it,
# docs/BENCHMARKS-NOTEBOOK.md). It is turned off for modernc.org's packages only:
# the race detector still instruments them and every other package, and
# Quire's own unsafe code (none today) keeps the check.
RACEFLAGS := -race -gcflags='modernc.org/...=-d=checkptr=0'

# Every test, fast checks first so a slip fails in seconds, not after the
# race suite: go vet, staticcheck, the frontend's unit tests and svelte-check;
# then Go with the race detector (includes 50 SIGKILLs of a writer), the UI
# in real Chromium against a mock and against the real HTTP host with the
# fake Ollama, and the real window under Xvfb. Last the Debian package,
# installed and started: it holds exactly the $(APP) the window tests just
# ran, because `deb` packages that binary and builds nothing (test-package
# would run vite and link the app a second time).
test: deps-test frontend $(STATICCHECK)
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt: these files are not formatted (run gofmt -w on them):"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(MAKE) --no-print-directory vulncheck
	cd frontend && npm test
	cd frontend && npm run check
	$(GO) test $(RACEFLAGS) -count=1 ./...
	@cat $(QUIRE_EVAL_REPORT)
	$(GO) test -count=1 -tags e2e -run TestBrowser ./test/e2e/
	CGO_ENABLED=1 $(GO) build $(GOFLAGS_DESKTOP) -o $(APP) .
	QUIRE_APP_BIN=$(CURDIR)/$(APP) $(GO) test -count=1 -tags desktoptest -v -run TestDesktop ./test/desktop/
	$(MAKE) --no-print-directory deb install-test

# The Debian package: build/quire_<version>_<arch>.deb holding build/bin/quire
# (built as by `make build`), the desktop entry and the icons (build/linux/).
# `make package` builds everything from nothing; `make deb` only packages the
# $(APP) already built (make test's way of not building it twice).
package: deps-run app
	$(MAKE) --no-print-directory deb

deb:
	@test -x $(APP) || { echo "$(APP) is not built: run make package (it builds the frontend and the app first)"; exit 1; }
	rm -f build/quire_*.deb
	build/linux/mkdeb.sh $(APP) build

# Installs the package, starts the installed /usr/bin/quire under Xvfb once
# (test/desktop TestInstalledPackage), then removes the package again unless
# it was installed before (nothing else is removed). test-package builds the
# package from nothing first; install-test tests build/quire_*.deb as it is.
test-package: package
	$(MAKE) --no-print-directory install-test

install-test:
	@had=$$(dpkg-query -W -f '$${Status}' quire 2>/dev/null | grep -c 'ok installed'); \
	DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --reinstall --no-install-recommends ./build/quire_*.deb || exit 1; \
	QUIRE_APP_BIN=/usr/bin/quire QUIRE_DESKTOP_ENTRY=/usr/share/applications/quire.desktop \
	  $(GO) test -count=1 -tags desktoptest -v -run '^TestInstalledPackage$$' ./test/desktop/; rc=$$?; \
	if [ "$$had" = 0 ]; then $(SUDO) dpkg -r quire >/dev/null; else echo "quire was installed before: the tested package stays installed"; fi; \
	exit $$rc

# The frontend's side of the Go<->TypeScript contract (buildkit/contract): the
# generated types (frontend/src/lib/generated/protocol.ts) and the golden event
# log of a real conversation the frontend tests fold. Run after changing a Go
# payload type; go test ./buildkit/contract fails while either is stale.
.PHONY: generate
generate:
	$(GO) run ./buildkit/contract/cmd/contract
	$(GO) test -count=1 -run '^TestGoldenLogIsFresh$$' ./buildkit/contract/ -update

# Benchmarks (figures go to docs/BENCHMARKS.md).
bench:
	$(GO) test -run '^$$' -bench . -benchtime 2s ./kernel/...
	$(GO) test -run '^$$' -bench . -benchtime 100x ./internal/vecindex ./memory
	$(GO) test -run '^$$' -bench StalledStreams -benchtime 1x ./host/httpapi
	$(GO) test -run '^$$' -bench ToolDeclarations -benchtime 100x ./assembly
	$(GO) test -run '^$$' -bench EvaluateFragment -benchtime 1x ./assembly
	$(GO) test ./rag -run '^$$' -bench 'Index|Reindex' -benchtime 3x -scifact $(SCIFACT)
	$(GO) test ./rag -run '^$$' -bench Search -benchtime 809x -timeout 30m -scifact $(SCIFACT)
	$(GO) test ./rag -run 'TestSciFact$$' -v -timeout 60m -scifact $(SCIFACT) -scifact.50k=false
	$(GO) test ./rag -run '^$$' -bench HostileFiles -benchtime 3x
	$(GO) test . -run '^$$' -bench SearchFirstResult -benchtime 20x -scifact $(SCIFACT)

# The real window's CPU while idle and while waiting, and its memory over
# 200 turns (docs/BENCHMARKS-NOTEBOOK.md, "The window's idle cost and memory"); needs
# what `make test` installs (Xvfb, xdotool).
bench-desktop: frontend
	CGO_ENABLED=1 $(GO) build $(GOFLAGS_DESKTOP) -o $(APP) .
	QUIRE_APP_BIN=$(CURDIR)/$(APP) $(GO) test -count=1 -tags desktoptest -run '^$$' -bench Desktop -benchtime 1x -timeout 20m ./test/desktop/

# The SciFact data for rag's benchmarks (docs/BENCHMARKS-NOTEBOOK.md, issue 6).
SCIFACT ?= $(CURDIR)/../shared/data/scifact

clean:
	rm -rf build/bin build/quire_*.deb frontend/dist/assets frontend/dist/index.html
