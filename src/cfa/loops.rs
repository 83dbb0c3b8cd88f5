//! Loop-head detection: the targets of back edges of a depth-first search from
//! each function entry (loops built with `goto` included). Loop heads are the
//! abstraction points of large-block encoding, together with call sites.

use super::{LocId, Program};

/// Sets `loop_head` on every location that is the target of a DFS back edge.
/// Linear in the size of the CFA (iterative DFS, no recursion).
pub fn mark_loop_heads(p: &mut Program) {
    let n = p.locations.len();
    // 0 = unvisited, 1 = on the DFS stack, 2 = done.
    let mut state = vec![0u8; n];
    let mut heads = Vec::new();
    let entries: Vec<LocId> = p
        .functions
        .iter()
        .filter_map(|f| f.body.as_ref().map(|b| b.entry))
        .collect();
    // Unreachable code (after a return, before a label) also gets searched.
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
                    1 => heads.push(to),
                    _ => {}
                }
            } else {
                state[loc.0 as usize] = 2;
                stack.pop();
            }
        }
    }
    for h in heads {
        p.locations[h.0 as usize].loop_head = true;
    }
}
