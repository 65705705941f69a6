//! Static shortest-path routing by hop count, as ns-2's default static
//! routing: computed once, ties broken by the lower link index so routes are
//! deterministic.

use std::collections::VecDeque;

/// Next-hop table: for each (node, destination node) the outgoing link.
#[derive(Clone, Debug)]
pub struct Routing {
    nodes: usize,
    next: Vec<Option<u32>>,
}

impl Routing {
    /// Routes over directed links given as `(from, to)` node pairs.
    pub fn compute(nodes: usize, links: &[(u32, u32)]) -> Self {
        let mut next = vec![None; nodes * nodes];
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (i, &(_, to)) in links.iter().enumerate() {
            incoming[to as usize].push(i as u32);
        }
        for dst in 0..nodes {
            // Breadth-first search backwards from the destination.
            let mut dist = vec![u32::MAX; nodes];
            dist[dst] = 0;
            let mut queue = VecDeque::from([dst]);
            while let Some(n) = queue.pop_front() {
                for &l in &incoming[n] {
                    let from = links[l as usize].0 as usize;
                    if dist[from] == u32::MAX {
                        dist[from] = dist[n] + 1;
                        queue.push_back(from);
                    }
                }
            }
            for (i, &(from, to)) in links.iter().enumerate() {
                let (f, t) = (from as usize, to as usize);
                if dist[f] != u32::MAX
                    && dist[t] != u32::MAX
                    && dist[t] + 1 == dist[f]
                    && next[f * nodes + dst].is_none()
                {
                    next[f * nodes + dst] = Some(i as u32);
                }
            }
        }
        Routing { nodes, next }
    }

    /// The link a packet at `node` takes towards `dst`, if any route exists.
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        self.next[node as usize * self.nodes + dst as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_path_in_a_line_and_a_shortcut() {
        // 0 -> 1 -> 2 -> 3 and a shortcut 0 -> 3.
        let links = [(0, 1), (1, 2), (2, 3), (0, 3), (3, 2), (2, 1), (1, 0)];
        let r = Routing::compute(4, &links);
        assert_eq!(r.next_hop(0, 3), Some(3));
        assert_eq!(r.next_hop(0, 2), Some(0));
        assert_eq!(r.next_hop(3, 0), Some(4));
        assert_eq!(r.next_hop(3, 3), None);
    }
}
