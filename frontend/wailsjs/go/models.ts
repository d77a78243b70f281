export namespace doctor {
	
	export class Check {
	    name: string;
	    ok: boolean;
	    detail: string;
	    remedy?: string;
	    hint?: string;
	    action?: string;
	    warn?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Check(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.ok = source["ok"];
	        this.detail = source["detail"];
	        this.remedy = source["remedy"];
	        this.hint = source["hint"];
	        this.action = source["action"];
	        this.warn = source["warn"];
	    }
	}
	export class Report {
	    ok: boolean;
	    checks: Check[];
	
	    static createFrom(source: any = {}) {
	        return new Report(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.checks = this.convertValues(source["checks"], Check);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace protocol {
	
	export class Activation {
	    scope: string;
	    replaces?: string;
	    digest?: string;
	
	    static createFrom(source: any = {}) {
	        return new Activation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.scope = source["scope"];
	        this.replaces = source["replaces"];
	        this.digest = source["digest"];
	    }
	}
	export class Approval {
	    accepted?: string[];
	    digest?: string;
	
	    static createFrom(source: any = {}) {
	        return new Approval(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.accepted = source["accepted"];
	        this.digest = source["digest"];
	    }
	}
	export class WorkflowParam {
	    name: string;
	    description?: string;
	    default?: string;
	
	    static createFrom(source: any = {}) {
	        return new WorkflowParam(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.default = source["default"];
	    }
	}
	export class WorkflowArtifact {
	    task: string;
	    params?: WorkflowParam[];
	
	    static createFrom(source: any = {}) {
	        return new WorkflowArtifact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.task = source["task"];
	        this.params = this.convertValues(source["params"], WorkflowParam);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SkillArtifact {
	    skillMd: string;
	
	    static createFrom(source: any = {}) {
	        return new SkillArtifact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.skillMd = source["skillMd"];
	    }
	}
	export class PromptFragment {
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new PromptFragment(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	    }
	}
	export class Artifact {
	    prompt?: PromptFragment;
	    skill?: SkillArtifact;
	    workflow?: WorkflowArtifact;
	
	    static createFrom(source: any = {}) {
	        return new Artifact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.prompt = this.convertValues(source["prompt"], PromptFragment);
	        this.skill = this.convertValues(source["skill"], SkillArtifact);
	        this.workflow = this.convertValues(source["workflow"], WorkflowArtifact);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Batch {
	    id: string;
	    folder: string;
	    title: string;
	    state: string;
	    total: number;
	    done: number;
	    failed: number;
	    workers: number;
	    applied: number;
	    error?: string;
	    createdMs: number;
	    updatedMs: number;
	
	    static createFrom(source: any = {}) {
	        return new Batch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.folder = source["folder"];
	        this.title = source["title"];
	        this.state = source["state"];
	        this.total = source["total"];
	        this.done = source["done"];
	        this.failed = source["failed"];
	        this.workers = source["workers"];
	        this.applied = source["applied"];
	        this.error = source["error"];
	        this.createdMs = source["createdMs"];
	        this.updatedMs = source["updatedMs"];
	    }
	}
	export class ReviewItem {
	    task: string;
	    from: string;
	    to: string;
	    tags: string[];
	    links: string[];
	    reason: string;
	    selected: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ReviewItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.task = source["task"];
	        this.from = source["from"];
	        this.to = source["to"];
	        this.tags = source["tags"];
	        this.links = source["links"];
	        this.reason = source["reason"];
	        this.selected = source["selected"];
	    }
	}
	export class BatchDecision {
	    items: ReviewItem[];
	
	    static createFrom(source: any = {}) {
	        return new BatchDecision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.items = this.convertValues(source["items"], ReviewItem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Session {
	    id: string;
	    title: string;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	    lastSeq: number;
	    running: boolean;
	    status?: string;
	    runStatus?: string;
	    parent?: string;
	    parentSeq?: number;
	    kind?: string;
	    damaged?: string;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.lastSeq = source["lastSeq"];
	        this.running = source["running"];
	        this.status = source["status"];
	        this.runStatus = source["runStatus"];
	        this.parent = source["parent"];
	        this.parentSeq = source["parentSeq"];
	        this.kind = source["kind"];
	        this.damaged = source["damaged"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class BranchResult {
	    session: Session;
	    runId: string;
	
	    static createFrom(source: any = {}) {
	        return new BranchResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = this.convertValues(source["session"], Session);
	        this.runId = source["runId"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class VersionMonitor {
	    runs: number;
	    signals: {[key: string]: number};
	
	    static createFrom(source: any = {}) {
	        return new VersionMonitor(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runs = source["runs"];
	        this.signals = source["signals"];
	    }
	}
	export class ScenarioRun {
	    passed: boolean;
	    tokens: number;
	    steps: number;
	    failure?: string;
	
	    static createFrom(source: any = {}) {
	        return new ScenarioRun(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.passed = source["passed"];
	        this.tokens = source["tokens"];
	        this.steps = source["steps"];
	        this.failure = source["failure"];
	    }
	}
	export class ScenarioResult {
	    name: string;
	    replay?: RunRef;
	    skipped?: string;
	    without: ScenarioRun;
	    with: ScenarioRun;
	
	    static createFrom(source: any = {}) {
	        return new ScenarioResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.replay = this.convertValues(source["replay"], RunRef);
	        this.skipped = source["skipped"];
	        this.without = this.convertValues(source["without"], ScenarioRun);
	        this.with = this.convertValues(source["with"], ScenarioRun);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class EvaluationReport {
	    candidate: string;
	    scenarios: ScenarioResult[];
	    model?: string;
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new EvaluationReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.candidate = source["candidate"];
	        this.scenarios = this.convertValues(source["scenarios"], ScenarioResult);
	        this.model = source["model"];
	        this.at = this.convertValues(source["at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SignalRef {
	    session: string;
	    seq: number;
	
	    static createFrom(source: any = {}) {
	        return new SignalRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.seq = source["seq"];
	    }
	}
	export class RunRef {
	    session: string;
	    run: string;
	
	    static createFrom(source: any = {}) {
	        return new RunRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.run = source["run"];
	    }
	}
	export class CandidateOrigin {
	    runs: RunRef[];
	    signals: SignalRef[];
	
	    static createFrom(source: any = {}) {
	        return new CandidateOrigin(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.runs = this.convertValues(source["runs"], RunRef);
	        this.signals = this.convertValues(source["signals"], SignalRef);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Candidate {
	    id: string;
	    name: string;
	    kind: string;
	    version: number;
	    replaces?: string;
	    artifact: Artifact;
	    digest: string;
	    origin: CandidateOrigin;
	    why?: string;
	    author: string;
	    state: string;
	    seq: number;
	    // Go type: time
	    createdAt: any;
	    evaluation?: EvaluationReport;
	    approval?: Approval;
	    scope?: string;
	    folder?: string;
	    monitor: VersionMonitor;
	
	    static createFrom(source: any = {}) {
	        return new Candidate(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.version = source["version"];
	        this.replaces = source["replaces"];
	        this.artifact = this.convertValues(source["artifact"], Artifact);
	        this.digest = source["digest"];
	        this.origin = this.convertValues(source["origin"], CandidateOrigin);
	        this.why = source["why"];
	        this.author = source["author"];
	        this.state = source["state"];
	        this.seq = source["seq"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.evaluation = this.convertValues(source["evaluation"], EvaluationReport);
	        this.approval = this.convertValues(source["approval"], Approval);
	        this.scope = source["scope"];
	        this.folder = source["folder"];
	        this.monitor = this.convertValues(source["monitor"], VersionMonitor);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class Event {
	    session: string;
	    seq: number;
	    type: string;
	    // Go type: time
	    time: any;
	    runId?: string;
	    visibility: string;
	    sources?: number[];
	    payload: number[];
	
	    static createFrom(source: any = {}) {
	        return new Event(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.seq = source["seq"];
	        this.type = source["type"];
	        this.time = this.convertValues(source["time"], null);
	        this.runId = source["runId"];
	        this.visibility = source["visibility"];
	        this.sources = source["sources"];
	        this.payload = source["payload"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FoundRunner {
	    name: string;
	    runner: string;
	    url: string;
	    models: number;
	
	    static createFrom(source: any = {}) {
	        return new FoundRunner(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.runner = source["runner"];
	        this.url = source["url"];
	        this.models = source["models"];
	    }
	}
	export class MCPImportIssue {
	    name: string;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPImportIssue(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.reason = source["reason"];
	    }
	}
	export class MCPImport {
	    added: string[];
	    refused: MCPImportIssue[];
	
	    static createFrom(source: any = {}) {
	        return new MCPImport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.refused = this.convertValues(source["refused"], MCPImportIssue);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class MCPTool {
	    name: string;
	    server: string;
	    tool: string;
	    description: string;
	    screening?: string[];
	    effects: string;
	    readOnly: boolean;
	    destructive: boolean;
	    override?: string;
	    loosened?: boolean;
	    enabled: boolean;
	    tokens: number;
	    problem?: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.description = source["description"];
	        this.screening = source["screening"];
	        this.effects = source["effects"];
	        this.readOnly = source["readOnly"];
	        this.destructive = source["destructive"];
	        this.override = source["override"];
	        this.loosened = source["loosened"];
	        this.enabled = source["enabled"];
	        this.tokens = source["tokens"];
	        this.problem = source["problem"];
	    }
	}
	export class MCPServerConfig {
	    name: string;
	    command?: string;
	    args?: string[];
	    env?: {[key: string]: string};
	    url?: string;
	    headers?: {[key: string]: string};
	    enabled: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MCPServerConfig(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	        this.url = source["url"];
	        this.headers = source["headers"];
	        this.enabled = source["enabled"];
	    }
	}
	export class MCPServer {
	    config: MCPServerConfig;
	    state: string;
	    reason?: string;
	    pid?: number;
	    sinceMs: number;
	    stderr?: string;
	    protocolVersion?: string;
	    server?: string;
	    tools: MCPTool[];
	    tokens: number;
	    leftOff?: number;
	
	    static createFrom(source: any = {}) {
	        return new MCPServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.config = this.convertValues(source["config"], MCPServerConfig);
	        this.state = source["state"];
	        this.reason = source["reason"];
	        this.pid = source["pid"];
	        this.sinceMs = source["sinceMs"];
	        this.stderr = source["stderr"];
	        this.protocolVersion = source["protocolVersion"];
	        this.server = source["server"];
	        this.tools = this.convertValues(source["tools"], MCPTool);
	        this.tokens = source["tokens"];
	        this.leftOff = source["leftOff"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	export class MCPToolChoice {
	    server: string;
	    tool: string;
	    enabled: boolean;
	    effects?: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPToolChoice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.enabled = source["enabled"];
	        this.effects = source["effects"];
	    }
	}
	export class ModelFacts {
	    name: string;
	    known: boolean;
	    problem?: string;
	    contextLength: number;
	    canThink: boolean;
	    canUseTools: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ModelFacts(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.known = source["known"];
	        this.problem = source["problem"];
	        this.contextLength = source["contextLength"];
	        this.canThink = source["canThink"];
	        this.canUseTools = source["canUseTools"];
	    }
	}
	
	export class QuestionCall {
	    id: string;
	    name: string;
	    arguments: number[];
	
	    static createFrom(source: any = {}) {
	        return new QuestionCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	    }
	}
	export class Question {
	    id?: string;
	    session: string;
	    runId: string;
	    calls: QuestionCall[];
	    descriptions?: string[];
	    dialogShowsAll?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Question(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.session = source["session"];
	        this.runId = source["runId"];
	        this.calls = this.convertValues(source["calls"], QuestionCall);
	        this.descriptions = source["descriptions"];
	        this.dialogShowsAll = source["dialogShowsAll"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class RunnerModel {
	    name: string;
	    contextLength: number;
	    contextFrom?: string;
	    tools: string;
	    embeds: boolean;
	    says: string;
	
	    static createFrom(source: any = {}) {
	        return new RunnerModel(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.contextLength = source["contextLength"];
	        this.contextFrom = source["contextFrom"];
	        this.tools = source["tools"];
	        this.embeds = source["embeds"];
	        this.says = source["says"];
	    }
	}
	export class RunnerScreen {
	    found: FoundRunner[];
	    models: RunnerModel[];
	    problem?: string;
	    assumedNumCtx: number;
	    restart?: string;
	
	    static createFrom(source: any = {}) {
	        return new RunnerScreen(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.found = this.convertValues(source["found"], FoundRunner);
	        this.models = this.convertValues(source["models"], RunnerModel);
	        this.problem = source["problem"];
	        this.assumedNumCtx = source["assumedNumCtx"];
	        this.restart = source["restart"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class SettingError {
	    field: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new SettingError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.field = source["field"];
	        this.message = source["message"];
	    }
	}
	export class SettingsLimits {
	    minNumCtx: number;
	    maxNumCtx: number;
	    defaultNumCtx: number;
	    maxTemperature: number;
	    maxAboutYou: number;
	    maxMcpCallSeconds: number;
	
	    static createFrom(source: any = {}) {
	        return new SettingsLimits(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.minNumCtx = source["minNumCtx"];
	        this.maxNumCtx = source["maxNumCtx"];
	        this.defaultNumCtx = source["defaultNumCtx"];
	        this.maxTemperature = source["maxTemperature"];
	        this.maxAboutYou = source["maxAboutYou"];
	        this.maxMcpCallSeconds = source["maxMcpCallSeconds"];
	    }
	}
	export class UserSettings {
	    ollamaHost: string;
	    model: string;
	    embedModel: string;
	    numCtx: number;
	    temperature?: number;
	    think?: boolean;
	    aboutYou: string;
	    profile: string;
	    theme: string;
	    mcpCallSeconds: number;
	    runner: string;
	    runnerUrl: string;
	    runnerRemote: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UserSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ollamaHost = source["ollamaHost"];
	        this.model = source["model"];
	        this.embedModel = source["embedModel"];
	        this.numCtx = source["numCtx"];
	        this.temperature = source["temperature"];
	        this.think = source["think"];
	        this.aboutYou = source["aboutYou"];
	        this.profile = source["profile"];
	        this.theme = source["theme"];
	        this.mcpCallSeconds = source["mcpCallSeconds"];
	        this.runner = source["runner"];
	        this.runnerUrl = source["runnerUrl"];
	        this.runnerRemote = source["runnerRemote"];
	    }
	}
	export class SettingsScreen {
	    settings: UserSettings;
	    notesDir: string;
	    model: ModelFacts;
	    models: string[];
	    limits: SettingsLimits;
	    profiles: string[];
	    themes: string[];
	    pinned: {[key: string]: string};
	    runner: RunnerScreen;
	
	    static createFrom(source: any = {}) {
	        return new SettingsScreen(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.settings = this.convertValues(source["settings"], UserSettings);
	        this.notesDir = source["notesDir"];
	        this.model = this.convertValues(source["model"], ModelFacts);
	        this.models = source["models"];
	        this.limits = this.convertValues(source["limits"], SettingsLimits);
	        this.profiles = source["profiles"];
	        this.themes = source["themes"];
	        this.pinned = source["pinned"];
	        this.runner = this.convertValues(source["runner"], RunnerScreen);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsSaved {
	    screen?: SettingsScreen;
	    refused?: SettingError;
	
	    static createFrom(source: any = {}) {
	        return new SettingsSaved(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.screen = this.convertValues(source["screen"], SettingsScreen);
	        this.refused = this.convertValues(source["refused"], SettingError);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	export class UndoRefusal {
	    id: string;
	    path: string;
	    reason: string;
	    changedSince?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new UndoRefusal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.path = source["path"];
	        this.reason = source["reason"];
	        this.changedSince = source["changedSince"];
	    }
	}
	export class UndoOutcome {
	    undone: string[];
	    refused?: UndoRefusal;
	
	    static createFrom(source: any = {}) {
	        return new UndoOutcome(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.undone = source["undone"];
	        this.refused = this.convertValues(source["refused"], UndoRefusal);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	

}

