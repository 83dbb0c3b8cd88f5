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
