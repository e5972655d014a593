#!/usr/bin/env python3
"""A conformance adapter for `inquiry-model conform`, standard library only.

It is a small implementation of the tool-inquiry recording lifecycle (RFD 082
with RFD 083's enrichments, profiles `rfd082` and `rfd083`) written from the
RFD tables, together with the environment a scenario describes (scripted
tools, `ask_user`, the prompter, the inquiry backend, the permission prompt,
the scheduler). It speaks the protocol of spec/conform-protocol.md:

    -> {"type": "init", "id": 1, "protocol": "inquiry-model-conform/1"}
    <- {"type": "init_ok", "in_reply_to": 1, "name": "...", "profiles": [...]}
    -> {"type": "run", "id": 2, "scenario": {...}}
    <- {"type": "run_ok", "in_reply_to": 2, "log": [{"persisted": {...}}, ...]}

Run it:  inquiry-model conform --adapter 'python3 examples/conform_adapter.py'

With `--free` it behaves as an implementation the harness cannot steer or
see inside (spec/conform-protocol.md "Capabilities"): it runs the newest
pending work first whatever the scenario's `schedule` says, reports prompts
without their call ID, and does not report `turn_ended`; its `init_ok` says
so (`"scheduler": "free"`, `"observes"` without `turn_ended`), and
`conform` searches the model's schedules for one that explains each run.

Set CONFORM_BREAK=cancel_is_error to make it answer a cancelled prompt with
an error response (the bug RFD 082 step 6 rules out); the conformance run
then fails with a shrunk scenario.

Its environment is scripted, so it can give every reply a scenario says. Set
CONFORM_ENVIRONMENT to a JSON declaration (spec/conform-protocol.md
"Environment", e.g. '{}' for the default: typed prompter answers, no backend
`cancelled` error) to make it behave as a real environment: it declares that
in `init_ok` and answers `unsupported` to a scenario that needs a reply
outside it. Set CONFORM_DELAY to a number of seconds to make it wait that
long before each `run` reply (a slow implementation).
"""

import json
import os
import sys
import time

PROFILES = ["rfd082", "rfd083"]
BREAK = os.environ.get("CONFORM_BREAK", "")
FREE = "--free" in sys.argv[1:]
DELAY = float(os.environ.get("CONFORM_DELAY", "0") or 0)
# None: a scripted environment, which can give anything.
ENVIRONMENT = (json.loads(os.environ["CONFORM_ENVIRONMENT"])
               if os.environ.get("CONFORM_ENVIRONMENT") else None)
BACKEND_RAISES = ["provider", "missing_structured_data", "answer_extraction", "other"]


class Unsupported(Exception):
    """The scenario needs a reply this environment cannot give."""


def environment_gives_answer(answer_type, value):
    if ENVIRONMENT is None or ENVIRONMENT.get("prompter_answers", "typed") == "any":
        return True
    return fits(answer_type, value)


def environment_raises(error):
    if ENVIRONMENT is None:
        return True
    return error in ENVIRONMENT.get("backend_errors", BACKEND_RAISES)


def fits(answer_type, value):
    """Whether an answer fits the question's type (RFD 083 step 6, RFD 028)."""
    t = answer_type["type"]
    if t == "boolean":
        return isinstance(value, bool)
    if t == "select":
        return isinstance(value, str) and value in answer_type.get("options", [])
    return isinstance(value, str)  # text, secret


def persisted_question(q, v083):
    """The persisted question (RFD 082 InquiryRequest; RFD 083 adds fields)."""
    at = q["answer_type"]
    if at["type"] == "select":
        at = {"type": "select", "options": [{"value": o} for o in at["options"]]}
    out = {"text": q["text"], "answer_type": at}
    if q.get("default") is not None:
        out["default"] = q["default"]
    if v083:
        if q.get("context") is not None:
            out["context"] = q["context"]
        if q.get("exclusive"):
            out["exclusive"] = True
        if q.get("persistence", "turn") == "none":
            out["persistence"] = "none"
    return out


class AskUserError(Exception):
    pass


def ask_user(arguments, answers):
    """RFD 083's ask_user tool: (kind, payload) with kind success/error/needs_input."""
    try:
        if not isinstance(arguments, dict):
            raise AskUserError("arguments must be an object")
        args = {k: v for k, v in arguments.items() if v is not None}
        question = args.get("question")
        if not isinstance(question, str) or not question.strip():
            raise AskUserError("`question` must be a non-empty string")
        if "\n" in question or "\r" in question:
            raise AskUserError("`question` must be a single line")
        context = args.get("context")
        if context is not None and not isinstance(context, str):
            raise AskUserError("`context` must be a string")
        requested = args.get("answer_type", "text")
        if requested not in ("boolean", "select", "text"):
            raise AskUserError("`answer_type` must be boolean, select or text")
        options = args.get("options")
        if options is not None:
            if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
                raise AskUserError("`options` must be an array of strings")
        if requested == "select":
            if not options:
                raise AskUserError("select requires options")
            answer_type = {"type": "select", "options": options}
        elif options is not None:
            raise AskUserError("options only with select")
        else:
            answer_type = {"type": requested}
        default = args.get("default")
        if default is not None and not fits(answer_type, default):
            raise AskUserError("`default` does not fit")
        if "answer" not in answers:
            q = {"id": "answer", "text": question, "answer_type": answer_type,
                 "exclusive": True, "persistence": "none"}
            if context is not None:
                q["context"] = context
            if default is not None:
                q["default"] = default
            return ("needs_input", q)
        if not fits(answer_type, answers["answer"]):
            raise AskUserError("the answer does not match the requested type")
        return ("success", json.dumps({"answer_type": requested, "answer": answers["answer"]},
                                      indent=2))
    except AskUserError as e:
        return ("error", "ask_user: " + str(e))


class Run:
    def __init__(self, s):
        self.s = s
        self.v083 = s.get("profile", "rfd083") == "rfd083"
        self.tty = s.get("tty", True)
        self.tools = s["tools"]
        self.prompter = list(s.get("prompter", []))
        self.backend = list(s.get("backend", []))
        self.permissions = list(s.get("permissions", []))
        self.schedule = list(s.get("schedule", []))
        self.log = []

    # -- what the implementation persists and shows --------------------
    def persist(self, event):
        self.log.append({"persisted": event})

    def respond(self, i, kind, content):
        is_error = kind not in ("tool_success", "cancelled_by_user")
        if kind == "cancelled_by_user" and BREAK == "cancel_is_error":
            is_error = True
        call = self.calls[i]
        self.persist({"type": "tool_call_response", "id": call["id"],
                      "content": content, "is_error": is_error})
        self.log.append({"responded": {"tool_call_id": call["id"], "tool": call["tool"],
                                       "is_error": is_error, "kind": kind,
                                       "content": content}})

    # -- the environment ----------------------------------------------
    def source(self, name):
        t = self.tools[name]
        if "source" in t:
            return t["source"]
        if t["program"]["kind"] == "ask_user":
            return {"kind": "builtin", "hook": "assistant"}
        return {"kind": "builtin", "hook": "default"}

    def config(self, name, qid):
        t = self.tools[name]
        c = dict(t.get("questions", {}).get(qid, {}))
        if t["program"]["kind"] == "ask_user" and qid == "answer" and c.get("prompt_label") is None:
            c["prompt_label"] = "Assistant"
        return c

    def script(self, name, program, answers, state):
        for ask in program.get("asks", []):
            q = ask["question"]
            qid = q["id"]
            if qid in state["accepted"]:
                continue
            if qid not in answers:
                return ("needs_input", q)
            n = state["rejections"].get(qid, 0)
            if n < ask.get("reject_first", 0):
                state["rejections"][qid] = n + 1
                return ("needs_input", q)
            state["accepted"].append(qid)
        finish = program.get("finish", {"with": "succeed"})
        if finish.get("with") == "fail":
            return ("error", name + " failed")
        return ("success", name + " done")

    # -- the turn and the scheduler -----------------------------------
    def run(self):
        for turn in self.s["turns"]:
            self.attempts = {}
            self.tool_answers = {}
            self.permission_decisions = {}
            self.persist({"type": "turn_start"})
            self.persist({"type": "chat_request", "content": turn.get("user", "")})
            for cycle in turn.get("cycles", []):
                self.cycle(cycle)
            if not FREE:
                self.log.append({"turn_ended": {
                    "tool_answers": list(self.tool_answers),
                    "permission_decisions": list(self.permission_decisions)}})
            self.persist({"type": "chat_response", "message": "done"})
        return self.log

    def cycle(self, cycle):
        self.calls = [dict(c, arguments=c.get("arguments", {})) for c in cycle]
        self.state = [{"answers": {}, "accepted": [], "rejections": {}} for _ in cycle]
        self.work = []
        for c in self.calls:
            self.persist({"type": "tool_call_request", "id": c["id"], "name": c["tool"],
                          "arguments": c["arguments"]})
        for i, c in enumerate(self.calls):
            tool = self.tools.get(c["tool"])
            if tool is None:
                self.respond(i, "unknown_tool", "no such tool")
                continue
            # An unset `run` asks, but on the `ask_user` key, whose built-in
            # registration runs unattended (RFD 083 "Tool configuration").
            default_run = "unattended" if c["tool"] == "ask_user" else "ask"
            if tool.get("run", default_run) == "unattended":
                self.work.append(("invoke", i))
                continue
            decided = self.permission_decisions.get(c["tool"] + ".__permission__")
            if decided is None:
                self.work.append(("permission", i))
            elif decided == "y":
                self.work.append(("invoke", i))
            else:
                self.respond(i, "permission_denied", "permission denied")
        while self.work:
            if FREE:
                pick = len(self.work) - 1  # its own order: the newest first
            else:
                pick = self.schedule.pop(0) % len(self.work) if self.schedule else 0
            self.perform(self.work.pop(pick))

    def perform(self, item):
        kind, i = item[0], item[1]
        if kind == "permission":
            reply = self.permissions.pop(0) if self.permissions else {"reply": "deny"}
            allow = reply["reply"] == "allow"
            if reply.get("remember"):
                self.permission_decisions[self.calls[i]["tool"] + ".__permission__"] = \
                    "y" if allow else "n"
            if allow:
                self.work.append(("invoke", i))
            else:
                self.respond(i, "permission_denied", "permission denied")
        elif kind == "invoke":
            self.invoke(i)
        elif kind == "prompt":
            q, iid = item[2], item[3]
            prompted = {"presentation": item[4]}
            if not FREE:  # a real prompter is not told which call asks
                prompted["tool_call_id"] = self.calls[i]["id"]
            self.log.append({"prompted": prompted})
            reply = self.prompter.pop(0) if self.prompter else {"reply": "eof"}
            if reply["reply"] == "answer" and not environment_gives_answer(q["answer_type"],
                                                                           reply["value"]):
                raise Unsupported("this prompter cannot type %s at a %s prompt"
                                  % (json.dumps(reply["value"]), q["answer_type"]["type"]))
            if reply["reply"] == "answer":
                self.answered(i, q, iid, reply["value"], reply.get("remember", False))
            else:
                self.fail(i, iid, "user", "cancelled_by_user")
        elif kind == "inquire":
            q, iid = item[2], item[3]
            reply = self.backend.pop(0) if self.backend else {"reply": "error", "error": "other"}
            if reply["reply"] == "error" and not environment_raises(reply["error"]):
                raise Unsupported("this backend cannot raise %r" % reply["error"])
            if reply["reply"] == "error":
                reason = "user" if reply["error"] == "cancelled" else "backend_error"
                return self.fail(i, iid, reason, "inquiry_failed")
            if reply["reply"] == "answer":
                structured = {"inquiry_id": iid, "answer": reply["value"]}
            else:
                structured = reply["structured"]
            ok = (isinstance(structured, dict) and structured.get("inquiry_id") == iid
                  and "answer" in structured and fits(q["answer_type"], structured["answer"]))
            if ok:
                self.answered(i, q, iid, structured["answer"], False)
            else:
                self.fail(i, iid, "backend_error", "inquiry_failed")

    def invoke(self, i):
        call = self.calls[i]
        name = call["tool"]
        program = self.tools[name]["program"]
        # RFD 083 "Built-in aliasing": the built-in is found by its config
        # key; under any other key it has no executor and the call fails.
        if (program["kind"] == "ask_user" and "source" not in self.tools[name]
                and name != "ask_user"):
            self.log.append({"invoked": {"tool_call_id": call["id"], "tool": name, "answers": {}}})
            return self.respond(i, "tool_error", name + ": not found")
        src = self.source(name)
        answers = {} if src["kind"] == "mcp" else dict(self.state[i]["answers"])
        self.log.append({"invoked": {"tool_call_id": call["id"], "tool": name, "answers": answers}})
        if program["kind"] == "ask_user":
            kind, payload = ask_user(call["arguments"], answers)
        else:
            kind, payload = self.script(name, program, answers, self.state[i])
        if kind == "success":
            self.respond(i, "tool_success", payload)
        elif kind == "error":
            self.respond(i, "tool_error", payload)
        else:
            by = ({"source": "assistant"}
                  if src["kind"] == "builtin" and src.get("hook") == "assistant"
                  else {"source": "tool", "name": name})
            self.needs_input(i, dict(payload), by)

    def needs_input(self, i, q, by):
        """RFD 082 "Recording lifecycle": record, then cached > static > guards > route."""
        if not self.v083:
            q["exclusive"] = False
            q["persistence"] = "turn"
        call = self.calls[i]
        key = (call["id"], q["id"])
        self.attempts[key] = self.attempts.get(key, 0) + 1
        iid = "%s.%s.%d" % (call["id"], q["id"], self.attempts[key])
        self.persist({"type": "inquiry_request", "id": iid, "source": by,
                      "question": persisted_question(q, self.v083)})
        cfg = self.config(call["tool"], q["id"])
        secret = q["answer_type"]["type"] == "secret"
        cacheable = not secret and q.get("persistence", "turn") == "turn"
        human_only = secret or q.get("exclusive", False)
        cache_key = call["tool"] + "." + q["id"]
        if cacheable and cache_key in self.tool_answers:
            return self.answered(i, q, iid, self.tool_answers[cache_key], False)
        if cfg.get("answer") is not None:
            if self.v083 and not fits(q["answer_type"], cfg["answer"]):
                return self.fail(i, iid, "invalid_static_answer", "invalid_static_answer")
            return self.answered(i, q, iid, cfg["answer"], False)
        target = cfg.get("target", "user")
        if target == "user" and self.tty:
            label = cfg.get("prompt_label") if self.v083 else None
            if label is not None and not label.strip():
                label = None
            t = q["answer_type"]["type"]
            shown = {"input": "password" if t == "secret" else t, "label": label,
                     "echo": not secret,
                     "remember_affordance": t == "boolean"
                     and q.get("persistence", "turn") == "turn"}
            self.work.append(("prompt", i, q, iid, shown))
        elif human_only and target == "user":
            self.fail(i, iid, "no_prompt_backend", "refused_no_tty")
        elif human_only:
            self.fail(i, iid, "assistant_routing_denied", "refused_assistant_target")
        else:
            self.work.append(("inquire", i, q, iid))

    def answered(self, i, q, iid, value, remember):
        """Step 5: answered, or redacted for a secret; remembered only if offered."""
        if q["answer_type"]["type"] == "secret":
            self.persist({"type": "inquiry_response", "outcome": "redacted", "id": iid})
        else:
            self.persist({"type": "inquiry_response", "outcome": "answered", "id": iid,
                          "answer": value})
        offered = (q["answer_type"]["type"] == "boolean"
                   and q.get("persistence", "turn") == "turn")
        if remember and offered:
            self.tool_answers[self.calls[i]["tool"] + "." + q["id"]] = value
        self.state[i]["answers"][q["id"]] = value
        self.work.append(("invoke", i))

    def fail(self, i, iid, reason, kind):
        """Step 6: cancelled with its reason; the tool response unchanged by 082."""
        self.persist({"type": "inquiry_response", "outcome": "cancelled", "id": iid,
                      "reason": reason})
        if kind == "cancelled_by_user":
            text = "Tool input cancelled by user."
        else:
            text = "The question could not be answered (%s)." % reason
        self.respond(i, kind, text)


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        if msg.get("type") == "init":
            reply = {"type": "init_ok", "in_reply_to": msg["id"],
                     "name": "python example adapter" + (" (broken: %s)" % BREAK if BREAK else ""),
                     "profiles": PROFILES, "language": "core"}
            if ENVIRONMENT is not None:
                reply["environment"] = ENVIRONMENT
            if FREE:
                reply["name"] += " (free scheduler)"
                reply["scheduler"] = "free"
                reply["observes"] = ["persisted", "invoked", "prompted", "responded",
                                     "inquired"]
        elif msg.get("type") == "run":
            if DELAY:
                time.sleep(DELAY)
            try:
                log = Run(msg["scenario"]).run()
                reply = {"type": "run_ok", "in_reply_to": msg["id"], "log": log}
            except Unsupported as e:
                reply = {"type": "unsupported", "in_reply_to": msg["id"], "text": str(e)}
            except Exception as e:  # the implementation failed, not diverged
                reply = {"type": "error", "in_reply_to": msg["id"], "text": repr(e)}
        else:
            reply = {"type": "error", "in_reply_to": msg.get("id"),
                     "text": "unknown message type %r" % msg.get("type")}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
