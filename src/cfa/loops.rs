//! Loop-head detection: the targets of back edges of a depth-first search from
//! each function entry (loops built with `goto` included). Loop heads are the
//! abstraction points of large-block encoding, together with call sites.

use super::{LocId, Program};

/// Sets `loop_head` on every location that is the target of a DFS back edge.
/// Linear in the size of the CFA (iterative DFS, no recursion).
pub fn mark_loop_heads(p: &mut Program) {
    let mut heads = Vec::new();
    dfs(p, |to| heads.push(to), |_| {});
    for h in heads {
        p.locations[h.0 as usize].loop_head = true;
    }
}

/// How many no-op edges back from a location [`tests_a_loop`] looks for
/// its loop head.
const LOOP_TEST_REACH: usize = 4;

/// Whether a branch at `loc` is a loop's own test: `loc` is a loop head,
/// or follows one through no-op edges alone (`while (1) { cont: ; if (!c)
/// break; ...`), so that its conditions count the loop's iterations.
pub fn tests_a_loop(p: &Program, loc: LocId) -> bool {
    let mut at = loc;
    for _ in 0..=LOOP_TEST_REACH {
        if p.loc(at).loop_head {
            return true;
        }
        let [e] = p.in_edges[at.0 as usize].as_slice() else {
            return false;
        };
        let e = p.edge(*e);
        if !matches!(e.op, super::EdgeOp::Skip) {
            return false;
        }
        at = e.from;
    }
    false
}

/// The reverse-postorder number of every location (index = `LocId`) in the
/// same depth-first search: along every edge that is not a back edge the
/// number grows, so processing a block's states in this order visits a
/// location after all its predecessors (merges happen before expansion).
pub fn reverse_postorder(p: &Program) -> Vec<u32> {
    let n = p.locations.len();
    let mut finished = 0u32;
    let mut rpo = vec![0u32; n];
    dfs(
        p,
        |_| {},
        |loc| {
            rpo[loc.0 as usize] = n as u32 - 1 - finished;
            finished += 1;
        },
    );
    rpo
}

/// Iterative DFS from every function entry, then from every unvisited
/// location (unreachable code after a return or before a label).
fn dfs(p: &Program, mut back_edge_to: impl FnMut(LocId), mut finish: impl FnMut(LocId)) {
    let n = p.locations.len();
    // 0 = unvisited, 1 = on the DFS stack, 2 = done.
    let mut state = vec![0u8; n];
    let entries: Vec<LocId> = p
        .functions
        .iter()
        .filter_map(|f| f.body.as_ref().map(|b| b.entry))
        .collect();
    let roots = entries.into_iter().chain((0..n as u32).map(LocId));
    let mut stack: Vec<(LocId, usize)> = Vec::new();
    for root in roots {
        if state[root.0 as usize] != 0 {
            continue;
        }
        state[root.0 as usize] = 1;
        stack.push((root, 0));
        while let Some((loc, i)) = stack.last_mut() {
            let out = &p.out_edges[loc.0 as usize];
            if *i < out.len() {
                let to = p.edges[out[*i].0 as usize].to;
                *i += 1;
                match state[to.0 as usize] {
                    0 => {
                        state[to.0 as usize] = 1;
                        stack.push((to, 0));
                    }
                    1 => back_edge_to(to),
                    _ => {}
                }
            } else {
                let loc = *loc;
                state[loc.0 as usize] = 2;
                finish(loc);
                stack.pop();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfa::EdgeOp;
    use crate::frontend::{parse_source, FrontendOptions};

    /// The lines of the branches [`tests_a_loop`] takes for loop tests.
    fn loop_test_lines(src: &str) -> Vec<u32> {
        let p = parse_source("t.c", src, &FrontendOptions::default()).unwrap();
        let mut lines: Vec<u32> = p
            .edges
            .iter()
            .filter(|e| matches!(e.op, EdgeOp::Assume { .. }) && tests_a_loop(&p, e.from))
            .map(|e| e.pos.line)
            .collect();
        lines.sort_unstable();
        lines.dedup();
        lines
    }

    #[test]
    fn the_tests_of_loops_are_told_from_other_branches() {
        let src = "int n, c, x;
int nd(void);
int main(void) {
  int i;
  for (i = 0; i < n; i++)
    if (nd()) x = 1;
  while (1) {
    if (!c) break;
    c--;
  }
  if (x) return 1;
  return 0;
}";
        assert_eq!(loop_test_lines(src), [5, 8]);
    }
}
