"""The reference preview flow (shared/BENCHMARK-FLOW.md) in LangGraph and as a
bare Python loop: the baselines `docs/benchmarks.md` sets Playbook Studio's
engine beside, measured by `scripts/bench-baseline.sh` in the same run.

Stages plan -> build -> test; planner, worker <-> reviewer (at most 3 rounds),
tester; task i fails review twice when i % 3 == 0, once when i % 3 == 1, and
passes at once otherwise. Every node only returns its scripted output, as the
engine's scripted agents do. Unlike the engine, neither baseline enforces any
contract, evaluates a gate expression, keeps a ledger, a worklog, an audit log
or an event log: they are the cost of the routing alone, so the comparison
flatters them.

Usage: python reference_flow.py [TASKS] [langgraph|loop|both]
Prints one `key value` line per figure, for the script to read.
"""

import resource
import sys
import time
from typing import TypedDict

MAX_ROUNDS = 3


def failures(i: int) -> int:
    """How many times task i (0-based) fails review."""
    return (2, 1, 0)[i % 3]


def expected_steps(tasks: int) -> int:
    return sum((8, 6, 4)[i % 3] for i in range(tasks))


class TaskState(TypedDict, total=False):
    index: int
    goal: str
    task: str
    spec_path: str
    tasks: list
    commit_sha: str
    summary: str
    verdict: str
    issues: list
    rounds: int
    failed_cases: list
    report: str
    steps: int


# The nodes: each returns its scripted output and counts itself as a step.
def planner(s: TaskState) -> TaskState:
    return {
        "spec_path": f"docs/specs/T-{s['index'] + 1}.md",
        "tasks": [s["task"]],
        "steps": s["steps"] + 1,
    }


def worker(s: TaskState) -> TaskState:
    return {
        "commit_sha": "0123456789abcdef0123456789abcdef01234567",
        "summary": "implemented",
        "steps": s["steps"] + 1,
    }


def reviewer(s: TaskState) -> TaskState:
    rounds = s["rounds"] + 1
    failing = rounds <= failures(s["index"])
    return {
        "verdict": "fail" if failing else "pass",
        "issues": ["needs another round"] if failing else [],
        "rounds": rounds,
        "steps": s["steps"] + 1,
    }


def tester(s: TaskState) -> TaskState:
    return {"failed_cases": [], "report": "all green", "steps": s["steps"] + 1}


def after_review(s: TaskState) -> str:
    if s["verdict"] == "pass":
        return "tester"
    return "worker" if s["rounds"] < MAX_ROUNDS else "escalate"


def initial(i: int) -> TaskState:
    return {"index": i, "goal": "Reference flow", "task": f"Task {i + 1}", "rounds": 0, "steps": 0}


def run_langgraph(tasks: int) -> tuple[int, int, int]:
    from langgraph.graph import END, START, StateGraph

    graph = StateGraph(TaskState)
    for name, node in [("planner", planner), ("worker", worker), ("reviewer", reviewer), ("tester", tester)]:
        graph.add_node(name, node)
    graph.add_edge(START, "planner")
    graph.add_edge("planner", "worker")
    graph.add_edge("worker", "reviewer")
    graph.add_conditional_edges(
        "reviewer", after_review, {"tester": "tester", "worker": "worker", "escalate": END}
    )
    graph.add_edge("tester", END)
    flow = graph.compile()
    steps = passed = escalated = 0
    for i in range(tasks):
        end = flow.invoke(initial(i))
        steps += end["steps"]
        if "report" in end:
            passed += 1
        else:
            escalated += 1
    return steps, passed, escalated


def run_loop(tasks: int) -> tuple[int, int, int]:
    """The same state changes with no framework: the floor of Python."""
    steps = passed = escalated = 0
    for i in range(tasks):
        s = initial(i)
        s.update(planner(s))
        node = "worker"
        while node not in ("done", "escalate"):
            if node == "worker":
                s.update(worker(s))
                node = "reviewer"
            elif node == "reviewer":
                s.update(reviewer(s))
                node = after_review(s)
            else:
                s.update(tester(s))
                node = "done"
        steps += s["steps"]
        if node == "done":
            passed += 1
        else:
            escalated += 1
    return steps, passed, escalated


def measure(name: str, run, tasks: int) -> None:
    wall0, cpu0 = time.perf_counter(), time.thread_time()
    steps, passed, escalated = run(tasks)
    wall, cpu = time.perf_counter() - wall0, time.thread_time() - cpu0
    if steps != expected_steps(tasks):
        sys.exit(f"{name}: {steps} steps, expected {expected_steps(tasks)}")
    print(f"{name}.steps {steps}")
    print(f"{name}.passed {passed}")
    print(f"{name}.escalated {escalated}")
    print(f"{name}.wall_s {wall:.3f}")
    print(f"{name}.us_per_step {wall * 1e6 / steps:.2f}")
    print(f"{name}.cpu_us_per_step {cpu * 1e6 / steps:.2f}")


def main() -> None:
    tasks = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    which = sys.argv[2] if len(sys.argv) > 2 else "both"
    if which in ("loop", "both"):
        measure("loop", run_loop, tasks)
    if which in ("langgraph", "both"):
        measure("langgraph", run_langgraph, tasks)
    # ru_maxrss is KiB on Linux: the whole process, interpreter included.
    print(f"peak_rss_mib {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f}")


if __name__ == "__main__":
    main()
