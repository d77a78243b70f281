package protocol

// The models screen's shapes: the models Ollama has installed, what each
// can do, which are loaded, and how a pull is going. The kernel does not
// produce these; the composition root does, over the Ollama adapter, and
// every host (the window, `quire serve`, the CLI) passes them through
// unchanged, so the page reads the same shapes from either transport.

// Model capabilities, as Ollama's /api/show names them (ModelInfo.Capabilities).
const (
	CapabilityCompletion = "completion"
	CapabilityTools      = "tools"
	CapabilityThinking   = "thinking"
	CapabilityVision     = "vision"
	CapabilityEmbedding  = "embedding"
)

// ModelInfo is one installed model.
type ModelInfo struct {
	Name          string   `json:"name"`                    // as Ollama lists it: "qwen3:4b"
	Size          int64    `json:"size"`                    // bytes on disk
	Family        string   `json:"family,omitempty"`        // "qwen3"
	ParameterSize string   `json:"parameterSize,omitempty"` // "4.0B"
	Quantization  string   `json:"quantization,omitempty"`  // "Q4_K_M"
	Capabilities  []string `json:"capabilities"`            // Capability* values; empty if /api/show failed
	ContextLength int      `json:"contextLength"`           // trained context, 0 if unknown
	Loaded        bool     `json:"loaded"`                  // in memory now (/api/ps)
	ModifiedMs    int64    `json:"modifiedMs"`              // Unix ms of the last change
	Error         string   `json:"error,omitempty"`         // why the details could not be read
}

// Recommended model roles (RecommendedModel.Role).
const (
	RoleChat      = "chat"
	RoleEmbedding = "embedding"
)

// RecommendedModel is one model Quire suggests for note work.
type RecommendedModel struct {
	Name         string `json:"name"`         // what to pull: "qwen3:4b"
	Role         string `json:"role"`         // RoleChat or RoleEmbedding
	Summary      string `json:"summary"`      // a short sentence for people
	DownloadSize int64  `json:"downloadSize"` // bytes, as the Ollama library lists it
	Installed    bool   `json:"installed"`    // an installed model has this name (as Ollama matches names)
}

// ModelsState is everything the models screen shows.
type ModelsState struct {
	Installed   []ModelInfo        `json:"installed"`       // most recently modified first
	Recommended []RecommendedModel `json:"recommended"`     // always present, even when Ollama is not
	Pulls       []PullProgress     `json:"pulls"`           // pulls since start: running ones and the last of each name
	Error       string             `json:"error,omitempty"` // why the installed list could not be read (Ollama down)
}

// Pull states (PullProgress.State).
const (
	PullRunning   = "running"
	PullDone      = "done"
	PullCancelled = "cancelled" // stopped by the user; a new pull of the name resumes it
	PullFailed    = "failed"    // Error says why
)

// Pull problems (PullProgress.Problem), for code that acts on the kind.
const (
	PullOffline = "offline" // Ollama could not reach the model registry
	PullUnknown = "unknown" // the registry has no model of that name
)

// PullProgress is how one pull is going. Completed and Total add up the
// bytes of every layer Ollama has announced so far (Total grows as layers
// appear). AtMs is when the host read the figure, so speed and time left
// are computed at the edge from two readings; a resumed pull starts with
// the bytes already on disk counted in Completed.
type PullProgress struct {
	Model     string `json:"model"`
	State     string `json:"state"`             // Pull* values
	Status    string `json:"status"`            // Ollama's last status line: "pulling manifest", "pulling 2bada8a74506"…
	Completed int64  `json:"completed"`         // bytes
	Total     int64  `json:"total"`             // bytes; 0 until the first layer is announced
	AtMs      int64  `json:"atMs"`              // Unix ms of this reading (the host's clock)
	StartedMs int64  `json:"startedMs"`         // Unix ms the pull started
	Error     string `json:"error,omitempty"`   // a sentence saying what to do, for PullFailed
	Problem   string `json:"problem,omitempty"` // PullOffline, PullUnknown, or "" (see Error)
}
