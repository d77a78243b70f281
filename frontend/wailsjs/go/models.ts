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
	export class BatchChange {
	    kind: string;
	    path: string;
	    from?: string;
	
	    static createFrom(source: any = {}) {
	        return new BatchChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.path = source["path"];
	        this.from = source["from"];
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
	export class AppliedBatch {
	    batch: Batch;
	    changes: BatchChange[];
	
	    static createFrom(source: any = {}) {
	        return new AppliedBatch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.batch = this.convertValues(source["batch"], Batch);
	        this.changes = this.convertValues(source["changes"], BatchChange);
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
	export class Proposal {
	    path: string;
	    tags: string[];
	    links: string[];
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new Proposal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.tags = source["tags"];
	        this.links = source["links"];
	        this.reason = source["reason"];
	    }
	}
	export class BatchTask {
	    id: string;
	    note: string;
	    state: string;
	    attempts: number;
	    error?: string;
	    session?: string;
	    proposal?: Proposal;
	
	    static createFrom(source: any = {}) {
	        return new BatchTask(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.note = source["note"];
	        this.state = source["state"];
	        this.attempts = source["attempts"];
	        this.error = source["error"];
	        this.session = source["session"];
	        this.proposal = this.convertValues(source["proposal"], Proposal);
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
	export class BatchReview {
	    batch: Batch;
	    tasks: BatchTask[];
	    items: ReviewItem[];
	    changes: BatchChange[];
	
	    static createFrom(source: any = {}) {
	        return new BatchReview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.batch = this.convertValues(source["batch"], Batch);
	        this.tasks = this.convertValues(source["tasks"], BatchTask);
	        this.items = this.convertValues(source["items"], ReviewItem);
	        this.changes = this.convertValues(source["changes"], BatchChange);
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
	export class RemovedMessage {
	    role: string;
	    origin: CallOrigin;
	    preview: string;
	    replacedBy: number;
	
	    static createFrom(source: any = {}) {
	        return new RemovedMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.role = source["role"];
	        this.origin = this.convertValues(source["origin"], CallOrigin);
	        this.preview = source["preview"];
	        this.replacedBy = source["replacedBy"];
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
	export class CallDiff {
	    previous: number;
	    added: number;
	    changed: number;
	    removed: RemovedMessage[];
	    systemChanged: boolean;
	    toolsAdded: string[];
	    toolsRemoved: string[];
	    optionsChanged: string[];
	
	    static createFrom(source: any = {}) {
	        return new CallDiff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.previous = source["previous"];
	        this.added = source["added"];
	        this.changed = source["changed"];
	        this.removed = this.convertValues(source["removed"], RemovedMessage);
	        this.systemChanged = source["systemChanged"];
	        this.toolsAdded = source["toolsAdded"];
	        this.toolsRemoved = source["toolsRemoved"];
	        this.optionsChanged = source["optionsChanged"];
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
	export class CallFail {
	    seq: number;
	    class: string;
	    message: string;
	    retrySeq: number;
	    retryReason?: string;
	
	    static createFrom(source: any = {}) {
	        return new CallFail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.class = source["class"];
	        this.message = source["message"];
	        this.retrySeq = source["retrySeq"];
	        this.retryReason = source["retryReason"];
	    }
	}
	export class CallReply {
	    seq: number;
	    // Go type: time
	    at: any;
	    content: string;
	    thinking?: string;
	    toolCalls?: CallToolCall[];
	    doneReason: string;
	    interrupted?: boolean;
	    promptTokens: number;
	    outputTokens: number;
	    durationNs: number;
	    firstTokenNs?: number;
	    totalNs: number;
	    cut?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CallReply(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.at = this.convertValues(source["at"], null);
	        this.content = source["content"];
	        this.thinking = source["thinking"];
	        this.toolCalls = this.convertValues(source["toolCalls"], CallToolCall);
	        this.doneReason = source["doneReason"];
	        this.interrupted = source["interrupted"];
	        this.promptTokens = source["promptTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.durationNs = source["durationNs"];
	        this.firstTokenNs = source["firstTokenNs"];
	        this.totalNs = source["totalNs"];
	        this.cut = source["cut"];
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
	export class CallTokens {
	    total: number;
	    system: number;
	    history: number;
	    tools: number;
	    window: number;
	    counted: number;
	    estimate: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CallTokens(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.total = source["total"];
	        this.system = source["system"];
	        this.history = source["history"];
	        this.tools = source["tools"];
	        this.window = source["window"];
	        this.counted = source["counted"];
	        this.estimate = source["estimate"];
	    }
	}
	export class CallTool {
	    name: string;
	    description: string;
	    tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new CallTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.tokens = source["tokens"];
	    }
	}
	export class CallOrigin {
	    event: string;
	    seq: number;
	    session?: string;
	    zone?: string;
	    hash?: string;
	    parts?: string[];
	    from?: number;
	    to?: number;
	    strategy?: string;
	
	    static createFrom(source: any = {}) {
	        return new CallOrigin(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event = source["event"];
	        this.seq = source["seq"];
	        this.session = source["session"];
	        this.zone = source["zone"];
	        this.hash = source["hash"];
	        this.parts = source["parts"];
	        this.from = source["from"];
	        this.to = source["to"];
	        this.strategy = source["strategy"];
	    }
	}
	export class CallToolCall {
	    id?: string;
	    name: string;
	    arguments: string;
	
	    static createFrom(source: any = {}) {
	        return new CallToolCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	    }
	}
	export class CallMessage {
	    role: string;
	    content: string;
	    toolName?: string;
	    toolCallId?: string;
	    toolCalls?: CallToolCall[];
	    origin: CallOrigin;
	    tokens: number;
	    bytes: number;
	    cut?: boolean;
	    change: string;
	
	    static createFrom(source: any = {}) {
	        return new CallMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.role = source["role"];
	        this.content = source["content"];
	        this.toolName = source["toolName"];
	        this.toolCallId = source["toolCallId"];
	        this.toolCalls = this.convertValues(source["toolCalls"], CallToolCall);
	        this.origin = this.convertValues(source["origin"], CallOrigin);
	        this.tokens = source["tokens"];
	        this.bytes = source["bytes"];
	        this.cut = source["cut"];
	        this.change = source["change"];
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
	export class CallOptions {
	    numCtx: number;
	    temperature?: number;
	    think?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CallOptions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.numCtx = source["numCtx"];
	        this.temperature = source["temperature"];
	        this.think = source["think"];
	    }
	}
	export class CallSummary {
	    n: number;
	    runId: string;
	    step: number;
	    attempt: number;
	    seq: number;
	    // Go type: time
	    at: any;
	    outcome: string;
	    replySeq: number;
	    promptTokens: number;
	
	    static createFrom(source: any = {}) {
	        return new CallSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.n = source["n"];
	        this.runId = source["runId"];
	        this.step = source["step"];
	        this.attempt = source["attempt"];
	        this.seq = source["seq"];
	        this.at = this.convertValues(source["at"], null);
	        this.outcome = source["outcome"];
	        this.replySeq = source["replySeq"];
	        this.promptTokens = source["promptTokens"];
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
	export class Call {
	    summary: CallSummary;
	    builtAt: number;
	    model: string;
	    options: CallOptions;
	    messages: CallMessage[];
	    shown: number;
	    messageCount: number;
	    tools: CallTool[];
	    toolsOff?: string;
	    tokens: CallTokens;
	    reply?: CallReply;
	    failure?: CallFail;
	    diff?: CallDiff;
	    truncated: boolean;
	    requestBytes: number;
	
	    static createFrom(source: any = {}) {
	        return new Call(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.summary = this.convertValues(source["summary"], CallSummary);
	        this.builtAt = source["builtAt"];
	        this.model = source["model"];
	        this.options = this.convertValues(source["options"], CallOptions);
	        this.messages = this.convertValues(source["messages"], CallMessage);
	        this.shown = source["shown"];
	        this.messageCount = source["messageCount"];
	        this.tools = this.convertValues(source["tools"], CallTool);
	        this.toolsOff = source["toolsOff"];
	        this.tokens = this.convertValues(source["tokens"], CallTokens);
	        this.reply = this.convertValues(source["reply"], CallReply);
	        this.failure = this.convertValues(source["failure"], CallFail);
	        this.diff = this.convertValues(source["diff"], CallDiff);
	        this.truncated = source["truncated"];
	        this.requestBytes = source["requestBytes"];
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
	
	
	export class CallList {
	    calls: CallSummary[];
	    total: number;
	
	    static createFrom(source: any = {}) {
	        return new CallList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.calls = this.convertValues(source["calls"], CallSummary);
	        this.total = source["total"];
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
	export class EvolutionSignal {
	    kind: string;
	    session: string;
	    run: string;
	    seq: number;
	    seqs: number[];
	    text: string;
	    tool?: string;
	    versions?: string[];
	    // Go type: time
	    at: any;
	
	    static createFrom(source: any = {}) {
	        return new EvolutionSignal(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.session = source["session"];
	        this.run = source["run"];
	        this.seq = source["seq"];
	        this.seqs = source["seqs"];
	        this.text = source["text"];
	        this.tool = source["tool"];
	        this.versions = source["versions"];
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
	export class CandidateDetail {
	    candidate: Candidate;
	    active?: Candidate;
	    evidence: EvolutionSignal[];
	    since: EvolutionSignal[];
	
	    static createFrom(source: any = {}) {
	        return new CandidateDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.candidate = this.convertValues(source["candidate"], Candidate);
	        this.active = this.convertValues(source["active"], Candidate);
	        this.evidence = this.convertValues(source["evidence"], EvolutionSignal);
	        this.since = this.convertValues(source["since"], EvolutionSignal);
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
	export class CandidateDraft {
	    name: string;
	    kind: string;
	    artifact: Artifact;
	    digest: string;
	    origin: CandidateOrigin;
	    replaces?: string;
	    why?: string;
	
	    static createFrom(source: any = {}) {
	        return new CandidateDraft(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.artifact = this.convertValues(source["artifact"], Artifact);
	        this.digest = source["digest"];
	        this.origin = this.convertValues(source["origin"], CandidateOrigin);
	        this.replaces = source["replaces"];
	        this.why = source["why"];
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
	
	export class NoteEdit {
	    path: string;
	    newPath: string;
	    links: number;
	    diff: string;
	
	    static createFrom(source: any = {}) {
	        return new NoteEdit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.newPath = source["newPath"];
	        this.links = source["links"];
	        this.diff = source["diff"];
	    }
	}
	export class ChangeRecord {
	    id: string;
	    tool: string;
	    kind: string;
	    path: string;
	    from?: string;
	    session: string;
	    title: string;
	    seq: number;
	    // Go type: time
	    time: any;
	    diff: string;
	    state: string;
	    undoneBy?: string;
	    byYou?: boolean;
	    undoes?: string;
	    reverse: string;
	    edits?: NoteEdit[];
	
	    static createFrom(source: any = {}) {
	        return new ChangeRecord(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.tool = source["tool"];
	        this.kind = source["kind"];
	        this.path = source["path"];
	        this.from = source["from"];
	        this.session = source["session"];
	        this.title = source["title"];
	        this.seq = source["seq"];
	        this.time = this.convertValues(source["time"], null);
	        this.diff = source["diff"];
	        this.state = source["state"];
	        this.undoneBy = source["undoneBy"];
	        this.byYou = source["byYou"];
	        this.undoes = source["undoes"];
	        this.reverse = source["reverse"];
	        this.edits = this.convertValues(source["edits"], NoteEdit);
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
	export class ChangeList {
	    changes: ChangeRecord[];
	    omitted?: number;
	    undoAll: {[key: string]: string[]};
	    batches?: AppliedBatch[];
	
	    static createFrom(source: any = {}) {
	        return new ChangeList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.changes = this.convertValues(source["changes"], ChangeRecord);
	        this.omitted = source["omitted"];
	        this.undoAll = source["undoAll"];
	        this.batches = this.convertValues(source["batches"], AppliedBatch);
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
	
	export class Document {
	    path: string;
	    name: string;
	    root: string;
	    format?: string;
	    status: string;
	    reason?: string;
	    chunks: number;
	    size: number;
	    // Go type: time
	    updated: any;
	
	    static createFrom(source: any = {}) {
	        return new Document(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.name = source["name"];
	        this.root = source["root"];
	        this.format = source["format"];
	        this.status = source["status"];
	        this.reason = source["reason"];
	        this.chunks = source["chunks"];
	        this.size = source["size"];
	        this.updated = this.convertValues(source["updated"], null);
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
	export class DocumentSource {
	    path: string;
	    name: string;
	    format: string;
	    page?: number;
	    pages?: number;
	    text: string;
	
	    static createFrom(source: any = {}) {
	        return new DocumentSource(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.name = source["name"];
	        this.format = source["format"];
	        this.page = source["page"];
	        this.pages = source["pages"];
	        this.text = source["text"];
	    }
	}
	export class EmbeddingState {
	    model: string;
	    status: string;
	    problem?: string;
	    inUse: string;
	    dimensions: number;
	    target?: string;
	
	    static createFrom(source: any = {}) {
	        return new EmbeddingState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.status = source["status"];
	        this.problem = source["problem"];
	        this.inUse = source["inUse"];
	        this.dimensions = source["dimensions"];
	        this.target = source["target"];
	    }
	}
	export class IndexProgress {
	    running: boolean;
	    phase: string;
	    total: number;
	    done: number;
	    failed: number;
	    refused: number;
	    skipped: number;
	    currentFile?: string;
	    etaMs: number;
	    paths?: string[];
	    error?: string;
	    queued: number;
	    reembedding?: string;
	
	    static createFrom(source: any = {}) {
	        return new IndexProgress(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.running = source["running"];
	        this.phase = source["phase"];
	        this.total = source["total"];
	        this.done = source["done"];
	        this.failed = source["failed"];
	        this.refused = source["refused"];
	        this.skipped = source["skipped"];
	        this.currentFile = source["currentFile"];
	        this.etaMs = source["etaMs"];
	        this.paths = source["paths"];
	        this.error = source["error"];
	        this.queued = source["queued"];
	        this.reembedding = source["reembedding"];
	    }
	}
	export class DocumentsState {
	    embedder: string;
	    offline: boolean;
	    vectorError?: string;
	    roots: string[];
	    documents: Document[];
	    progress: IndexProgress;
	    embedding?: EmbeddingState;
	
	    static createFrom(source: any = {}) {
	        return new DocumentsState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.embedder = source["embedder"];
	        this.offline = source["offline"];
	        this.vectorError = source["vectorError"];
	        this.roots = source["roots"];
	        this.documents = this.convertValues(source["documents"], Document);
	        this.progress = this.convertValues(source["progress"], IndexProgress);
	        this.embedding = this.convertValues(source["embedding"], EmbeddingState);
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
	
	export class EvaluationJob {
	    candidate: string;
	    state: string;
	    done: number;
	    total: number;
	    scenario?: string;
	    error?: string;
	    report?: EvaluationReport;
	    // Go type: time
	    started: any;
	
	    static createFrom(source: any = {}) {
	        return new EvaluationJob(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.candidate = source["candidate"];
	        this.state = source["state"];
	        this.done = source["done"];
	        this.total = source["total"];
	        this.scenario = source["scenario"];
	        this.error = source["error"];
	        this.report = this.convertValues(source["report"], EvaluationReport);
	        this.started = this.convertValues(source["started"], null);
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
	
	export class EvolutionState {
	    candidates: Candidate[];
	    signals: EvolutionSignal[];
	    learn: boolean;
	
	    static createFrom(source: any = {}) {
	        return new EvolutionState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.candidates = this.convertValues(source["candidates"], Candidate);
	        this.signals = this.convertValues(source["signals"], EvolutionSignal);
	        this.learn = source["learn"];
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
	export class MCPList {
	    servers: MCPServer[];
	    tokens: number;
	    problem?: string;
	
	    static createFrom(source: any = {}) {
	        return new MCPList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.servers = this.convertValues(source["servers"], MCPServer);
	        this.tokens = source["tokens"];
	        this.problem = source["problem"];
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
	export class MemoryItem {
	    id: string;
	    kind: string;
	    note?: string;
	    text: string;
	    status: string;
	    origin: string;
	    approved?: string;
	    session: string;
	    seq: number;
	    events: number[];
	    sources: number[];
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	
	    static createFrom(source: any = {}) {
	        return new MemoryItem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.kind = source["kind"];
	        this.note = source["note"];
	        this.text = source["text"];
	        this.status = source["status"];
	        this.origin = source["origin"];
	        this.approved = source["approved"];
	        this.session = source["session"];
	        this.seq = source["seq"];
	        this.events = source["events"];
	        this.sources = source["sources"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
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
	export class MemoryList {
	    items: MemoryItem[];
	    approval: boolean;
	    learn: boolean;
	
	    static createFrom(source: any = {}) {
	        return new MemoryList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.items = this.convertValues(source["items"], MemoryItem);
	        this.approval = source["approval"];
	        this.learn = source["learn"];
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
	export class SnippetPart {
	    text: string;
	    match?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SnippetPart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.text = source["text"];
	        this.match = source["match"];
	    }
	}
	export class MessageHit {
	    session: string;
	    title: string;
	    seq: number;
	    role: string;
	    // Go type: time
	    time: any;
	    snippet: SnippetPart[];
	
	    static createFrom(source: any = {}) {
	        return new MessageHit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = source["session"];
	        this.title = source["title"];
	        this.seq = source["seq"];
	        this.role = source["role"];
	        this.time = this.convertValues(source["time"], null);
	        this.snippet = this.convertValues(source["snippet"], SnippetPart);
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
	export class MessageSearch {
	    query: string;
	    hits: MessageHit[];
	
	    static createFrom(source: any = {}) {
	        return new MessageSearch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.query = source["query"];
	        this.hits = this.convertValues(source["hits"], MessageHit);
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
	export class ModelInfo {
	    name: string;
	    size: number;
	    family?: string;
	    parameterSize?: string;
	    quantization?: string;
	    capabilities: string[];
	    contextLength: number;
	    loaded: boolean;
	    modifiedMs: number;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.size = source["size"];
	        this.family = source["family"];
	        this.parameterSize = source["parameterSize"];
	        this.quantization = source["quantization"];
	        this.capabilities = source["capabilities"];
	        this.contextLength = source["contextLength"];
	        this.loaded = source["loaded"];
	        this.modifiedMs = source["modifiedMs"];
	        this.error = source["error"];
	    }
	}
	export class PullProgress {
	    model: string;
	    state: string;
	    status: string;
	    completed: number;
	    total: number;
	    atMs: number;
	    startedMs: number;
	    error?: string;
	    problem?: string;
	
	    static createFrom(source: any = {}) {
	        return new PullProgress(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.state = source["state"];
	        this.status = source["status"];
	        this.completed = source["completed"];
	        this.total = source["total"];
	        this.atMs = source["atMs"];
	        this.startedMs = source["startedMs"];
	        this.error = source["error"];
	        this.problem = source["problem"];
	    }
	}
	export class RecommendedModel {
	    name: string;
	    role: string;
	    summary: string;
	    downloadSize: number;
	    installed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new RecommendedModel(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.role = source["role"];
	        this.summary = source["summary"];
	        this.downloadSize = source["downloadSize"];
	        this.installed = source["installed"];
	    }
	}
	export class ModelsState {
	    installed: ModelInfo[];
	    recommended: RecommendedModel[];
	    pulls: PullProgress[];
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelsState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.installed = this.convertValues(source["installed"], ModelInfo);
	        this.recommended = this.convertValues(source["recommended"], RecommendedModel);
	        this.pulls = this.convertValues(source["pulls"], PullProgress);
	        this.error = source["error"];
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
	
	export class NoteEntry {
	    name: string;
	    path?: string;
	    folder?: boolean;
	    note?: boolean;
	    link?: boolean;
	    size: number;
	    // Go type: time
	    modified: any;
	    refused?: string;
	
	    static createFrom(source: any = {}) {
	        return new NoteEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.path = source["path"];
	        this.folder = source["folder"];
	        this.note = source["note"];
	        this.link = source["link"];
	        this.size = source["size"];
	        this.modified = this.convertValues(source["modified"], null);
	        this.refused = source["refused"];
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
	export class NoteFolder {
	    root: string;
	    path: string;
	    entries: NoteEntry[];
	    omitted?: number;
	
	    static createFrom(source: any = {}) {
	        return new NoteFolder(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.root = source["root"];
	        this.path = source["path"];
	        this.entries = this.convertValues(source["entries"], NoteEntry);
	        this.omitted = source["omitted"];
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
	export class NoteLink {
	    from: string;
	    target: string;
	    sub?: string;
	    text?: string;
	    line: number;
	    embed?: boolean;
	    wiki?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new NoteLink(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.from = source["from"];
	        this.target = source["target"];
	        this.sub = source["sub"];
	        this.text = source["text"];
	        this.line = source["line"];
	        this.embed = source["embed"];
	        this.wiki = source["wiki"];
	    }
	}
	export class NoteLinks {
	    path: string;
	    indexed: boolean;
	    backlinks: NoteLink[];
	    unresolved: NoteLink[];
	    backlinkCount: number;
	    unresolvedCount: number;
	    limit: number;
	
	    static createFrom(source: any = {}) {
	        return new NoteLinks(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.indexed = source["indexed"];
	        this.backlinks = this.convertValues(source["backlinks"], NoteLink);
	        this.unresolved = this.convertValues(source["unresolved"], NoteLink);
	        this.backlinkCount = source["backlinkCount"];
	        this.unresolvedCount = source["unresolvedCount"];
	        this.limit = source["limit"];
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
	export class NoteText {
	    path: string;
	    text: string;
	    size: number;
	    limit: number;
	    truncated?: boolean;
	    // Go type: time
	    modified: any;
	
	    static createFrom(source: any = {}) {
	        return new NoteText(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.text = source["text"];
	        this.size = source["size"];
	        this.limit = source["limit"];
	        this.truncated = source["truncated"];
	        this.modified = this.convertValues(source["modified"], null);
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
	export class NoteVersions {
	    id: string;
	    path: string;
	    quire?: string;
	    now?: string;
	    limit: number;
	    truncated?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new NoteVersions(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.path = source["path"];
	        this.quire = source["quire"];
	        this.now = source["now"];
	        this.limit = source["limit"];
	        this.truncated = source["truncated"];
	    }
	}
	export class OllamaCheck {
	    address: string;
	    ok: boolean;
	    version?: string;
	    models: string[];
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new OllamaCheck(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.address = source["address"];
	        this.ok = source["ok"];
	        this.version = source["version"];
	        this.models = source["models"];
	        this.message = source["message"];
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
	
	
	
	export class SkillRequires {
	    model: string[];
	    mcp: string[];
	    notes: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SkillRequires(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.mcp = source["mcp"];
	        this.notes = source["notes"];
	    }
	}
	export class SkillInfo {
	    name: string;
	    description: string;
	    when?: string;
	    source: string;
	    replaces?: boolean;
	    enabled: boolean;
	    unavailable?: string;
	    requires: SkillRequires;
	    files: string[];
	
	    static createFrom(source: any = {}) {
	        return new SkillInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.when = source["when"];
	        this.source = source["source"];
	        this.replaces = source["replaces"];
	        this.enabled = source["enabled"];
	        this.unavailable = source["unavailable"];
	        this.requires = this.convertValues(source["requires"], SkillRequires);
	        this.files = source["files"];
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
	export class SkillProblem {
	    folder: string;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new SkillProblem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.folder = source["folder"];
	        this.reason = source["reason"];
	    }
	}
	export class SkillList {
	    skills: SkillInfo[];
	    problems: SkillProblem[];
	    folder: string;
	
	    static createFrom(source: any = {}) {
	        return new SkillList(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.skills = this.convertValues(source["skills"], SkillInfo);
	        this.problems = this.convertValues(source["problems"], SkillProblem);
	        this.folder = source["folder"];
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
	
	
	
	export class StandingBudget {
	    modelCalls: number;
	    tokens: number;
	    notes: number;
	
	    static createFrom(source: any = {}) {
	        return new StandingBudget(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.modelCalls = source["modelCalls"];
	        this.tokens = source["tokens"];
	        this.notes = source["notes"];
	    }
	}
	export class StandingFiring {
	    id: string;
	    task: string;
	    slotMs: number;
	    missed?: number;
	    why?: string;
	    step: string;
	    batch?: string;
	    error?: string;
	    startedMs: number;
	    updatedMs: number;
	
	    static createFrom(source: any = {}) {
	        return new StandingFiring(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.task = source["task"];
	        this.slotMs = source["slotMs"];
	        this.missed = source["missed"];
	        this.why = source["why"];
	        this.step = source["step"];
	        this.batch = source["batch"];
	        this.error = source["error"];
	        this.startedMs = source["startedMs"];
	        this.updatedMs = source["updatedMs"];
	    }
	}
	export class StandingSchedule {
	    kind: string;
	    at?: string;
	    weekday?: string;
	    more?: number;
	
	    static createFrom(source: any = {}) {
	        return new StandingSchedule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.at = source["at"];
	        this.weekday = source["weekday"];
	        this.more = source["more"];
	    }
	}
	export class StandingTask {
	    id: string;
	    name: string;
	    folder: string;
	    instruction?: string;
	    schedule: StandingSchedule;
	    budget: StandingBudget;
	    paused?: boolean;
	    createdMs: number;
	
	    static createFrom(source: any = {}) {
	        return new StandingTask(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.folder = source["folder"];
	        this.instruction = source["instruction"];
	        this.schedule = this.convertValues(source["schedule"], StandingSchedule);
	        this.budget = this.convertValues(source["budget"], StandingBudget);
	        this.paused = source["paused"];
	        this.createdMs = source["createdMs"];
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
	export class StandingSummary {
	    task: StandingTask;
	    schedule: string;
	    nextMs?: number;
	    last?: StandingFiring;
	    batch?: Batch;
	    proposed: number;
	    kept: number;
	    waiting: boolean;
	    flagged: boolean;
	
	    static createFrom(source: any = {}) {
	        return new StandingSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.task = this.convertValues(source["task"], StandingTask);
	        this.schedule = source["schedule"];
	        this.nextMs = source["nextMs"];
	        this.last = this.convertValues(source["last"], StandingFiring);
	        this.batch = this.convertValues(source["batch"], Batch);
	        this.proposed = source["proposed"];
	        this.kept = source["kept"];
	        this.waiting = source["waiting"];
	        this.flagged = source["flagged"];
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
	
	
	
	
	
	export class WritePreview {
	    tool: string;
	    kind?: string;
	    path?: string;
	    from?: string;
	    before?: string;
	    after?: string;
	    diff: string;
	    limit: number;
	    truncated?: boolean;
	    refused?: string;
	    edits?: NoteEdit[];
	    links?: number;
	
	    static createFrom(source: any = {}) {
	        return new WritePreview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.tool = source["tool"];
	        this.kind = source["kind"];
	        this.path = source["path"];
	        this.from = source["from"];
	        this.before = source["before"];
	        this.after = source["after"];
	        this.diff = source["diff"];
	        this.limit = source["limit"];
	        this.truncated = source["truncated"];
	        this.refused = source["refused"];
	        this.edits = this.convertValues(source["edits"], NoteEdit);
	        this.links = source["links"];
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

