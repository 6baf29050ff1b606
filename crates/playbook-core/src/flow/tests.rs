//! The graph walks of [`Flow`] against plain definitions of what they
//! compute, on random flows: the iterative ones must find what the
//! recursive and quadratic ones they replaced found.

use petgraph::algo::tarjan_scc;
use proptest::prelude::*;
use serde_json::{Value, json};

use super::*;

/// Stages of roles, each role with `handoff_to` (indexes into all roles,
/// possibly dangling) or none; some stages disabled, some empty.
fn playbooks() -> impl Strategy<Value = Playbook> {
    let role = prop::option::weighted(0.7, prop::collection::vec(0usize..14, 0..4));
    let stage = (prop::collection::vec(role, 0..5), prop::bool::weighted(0.8));
    prop::collection::vec(stage, 1..5).prop_map(|stages| {
        let count: usize = stages.iter().map(|(roles, _)| roles.len()).sum();
        let mut workflow = serde_json::Map::new();
        let mut index = 0;
        for (s, (roles, enabled)) in stages.iter().enumerate() {
            let roles: Vec<Value> = roles
                .iter()
                .map(|handoff| {
                    let mut role = json!({ "name": format!("r{index}") });
                    if let Some(targets) = handoff {
                        // One past the last role names no role: a dangling
                        // handoff, which adds no edge.
                        let names: Vec<String> = targets
                            .iter()
                            .map(|t| format!("r{}", t % (count + 1)))
                            .collect();
                        role["handoff_to"] = json!(names);
                    }
                    index += 1;
                    role
                })
                .collect();
            workflow.insert(
                format!("s{s}"),
                json!({ "enabled": enabled, "roles": roles }),
            );
        }
        serde_json::from_value(json!({ "id": "p", "name": "p", "workflow": workflow }))
            .expect("a playbook")
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn loops_are_the_strongly_connected_sets_tarjan_finds_within_a_stage(p in playbooks()) {
        let flow = Flow::new(&p);
        // The engine routes only within a stage and never to the role that
        // just ran: edges to another stage and self-edges are not followed.
        let within = petgraph::visit::EdgeFiltered::from_fn(&flow.graph, |e| {
            e.source() != e.target()
                && flow.roles[e.source().index()].stage_index
                    == flow.roles[e.target().index()].stage_index
        });
        let mut expected: Vec<Vec<usize>> = tarjan_scc(&within)
            .into_iter()
            .filter(|scc| scc.len() > 1)
            .map(|scc| {
                let mut roles: Vec<usize> = scc.into_iter().map(|n| n.index()).collect();
                roles.sort_unstable();
                roles
            })
            .collect();
        expected.sort();
        prop_assert_eq!(flow.loops(), expected);
    }

    #[test]
    fn stage_components_are_mutually_reachable_sets_successors_first(p in playbooks()) {
        let flow = Flow::new(&p);
        let sets = flow.stage_components();
        let mut set_of = vec![usize::MAX; flow.roles.len()];
        for (k, members) in sets.iter().enumerate() {
            for &i in members {
                prop_assert_eq!(set_of[i], usize::MAX, "role {} in two sets", i);
                set_of[i] = k;
            }
        }
        prop_assert!(set_of.iter().all(|&k| k != usize::MAX), "every role in a set");
        let reach: Vec<Vec<usize>> = (0..flow.roles.len())
            .map(|i| flow.reachable_in_stage(i))
            .collect();
        for i in 0..flow.roles.len() {
            for j in 0..flow.roles.len() {
                let together = reach[i].contains(&j) && reach[j].contains(&i);
                prop_assert_eq!(set_of[i] == set_of[j], together, "roles {} and {}", i, j);
            }
            for (j, _) in flow.successors(i) {
                if flow.roles[j].stage_index == flow.roles[i].stage_index {
                    prop_assert!(set_of[j] <= set_of[i], "edge {} → {} goes to a later set", i, j);
                }
            }
        }
    }

    #[test]
    fn stage_questions_answer_as_a_scan_of_every_role_did(p in playbooks()) {
        let flow = Flow::new(&p);
        for s in 0..p.workflow.len() + 1 {
            let scanned: Vec<usize> = flow
                .roles
                .iter()
                .enumerate()
                .filter(|(_, r)| r.stage_index == s)
                .map(|(i, _)| i)
                .collect();
            prop_assert_eq!(flow.entries_of_stage(s).collect::<Vec<_>>(), scanned.clone());
            prop_assert_eq!(flow.entry_of_stage(s), scanned.first().copied());
        }
        for (i, route) in flow.routes().into_iter().enumerate() {
            if let route::OnPass::LeaveStage { next_stage } = route.on_pass {
                let searched = (flow.roles[i].stage_index + 1..flow.enabled.len())
                    .find(|&s| flow.is_stage_enabled(s));
                prop_assert_eq!(next_stage, searched);
            }
        }
    }

    #[test]
    fn ancestors_are_the_roles_with_a_path_nearest_first(p in playbooks()) {
        let flow = Flow::new(&p);
        for i in 0..flow.roles.len() {
            // Breadth first over incoming edges, as it always was.
            let mut seen = vec![false; flow.roles.len()];
            let mut expected = Vec::new();
            let mut queue = VecDeque::from([i]);
            while let Some(k) = queue.pop_front() {
                for e in flow
                    .graph
                    .edges_directed(NodeIndex::new(k), petgraph::Direction::Incoming)
                {
                    let j = e.source().index();
                    if !seen[j] {
                        seen[j] = true;
                        expected.push(j);
                        queue.push_back(j);
                    }
                }
            }
            prop_assert_eq!(flow.ancestors(i), expected.clone());
            // A walk stopped at the n-th role has met the first n.
            let stop = expected.len() / 2;
            let mut met = Vec::new();
            flow.walk_ancestors(i, |j| {
                met.push(j);
                met.len() > stop
            });
            prop_assert_eq!(&met[..], &expected[..(stop + 1).min(expected.len())]);
        }
    }
}
