//! Static shortest-path routing by hop count, as ns-2's default static
//! routing: computed once, ties broken by the lower link index so routes are
//! deterministic.

use std::collections::VecDeque;

/// Next-hop table: for each (node, destination node) the outgoing link.
///
/// Most nodes of a large topology are hosts with one link out (the 4,000
/// ends of a 2,000-flow dumbbell): their next hop is that link whatever the
/// destination, so they keep only which destinations they reach (a bit
/// each), and full rows are kept for nodes with a choice to make. The
/// routes are those of the full table (a shortest path from a node with one
/// way out takes that way).
#[derive(Clone, Debug)]
pub struct Routing {
    nodes: usize,
    /// Words of 64 bits in a row of `reach`.
    words: usize,
    /// Per node: its row in `rows` (several links out), or its one link
    /// and its row in `reach` (one link out), or nothing (no link out).
    table: Vec<Exit>,
    /// Next hops of the nodes with several links out, a row per node.
    rows: Vec<u32>,
    /// Destinations reached by the nodes with one link out, a bit row per
    /// node.
    reach: Vec<u64>,
}

/// How a node's packets leave it.
#[derive(Clone, Copy, Debug)]
enum Exit {
    None,
    One { link: u32, row: u32 },
    Many { row: u32 },
}

/// No route, in a row of `Routing::rows`.
const NO_ROUTE: u32 = u32::MAX;

impl Routing {
    /// Routes over directed links given as `(from, to)` node pairs.
    pub fn compute(nodes: usize, links: &[(u32, u32)]) -> Self {
        let mut incoming: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        let mut outgoing: Vec<Vec<u32>> = vec![Vec::new(); nodes];
        for (i, &(from, to)) in links.iter().enumerate() {
            incoming[to as usize].push(i as u32);
            outgoing[from as usize].push(i as u32);
        }
        let words = nodes.div_ceil(64);
        let (mut many, mut one) = (0u32, 0u32);
        let table: Vec<Exit> = (0..nodes)
            .map(|n| match outgoing[n].len() {
                0 => Exit::None,
                1 => {
                    one += 1;
                    Exit::One {
                        link: outgoing[n][0],
                        row: one - 1,
                    }
                }
                _ => {
                    many += 1;
                    Exit::Many { row: many - 1 }
                }
            })
            .collect();
        let mut rows = vec![NO_ROUTE; many as usize * nodes];
        let mut reach = vec![0u64; one as usize * words];
        let mut dist = vec![u32::MAX; nodes];
        let mut queue = VecDeque::new();
        for dst in 0..nodes {
            // Breadth-first search backwards from the destination.
            dist.fill(u32::MAX);
            dist[dst] = 0;
            queue.push_back(dst);
            while let Some(n) = queue.pop_front() {
                for &l in &incoming[n] {
                    let from = links[l as usize].0 as usize;
                    if dist[from] == u32::MAX {
                        dist[from] = dist[n] + 1;
                        queue.push_back(from);
                    }
                }
            }
            // Whether the destination is reached at all, for the nodes
            // with one way out; the lowest-numbered link on a shortest path,
            // for the others.
            for (f, exit) in table.iter().enumerate() {
                if dist[f] == u32::MAX || f == dst {
                    continue;
                }
                match *exit {
                    Exit::One { row, .. } => {
                        reach[row as usize * words + dst / 64] |= 1 << (dst % 64);
                    }
                    Exit::Many { row } => {
                        let next = outgoing[f].iter().copied().find(|&l| {
                            dist[links[l as usize].1 as usize].wrapping_add(1) == dist[f]
                        });
                        rows[row as usize * nodes + dst] = next.unwrap_or(NO_ROUTE);
                    }
                    Exit::None => {}
                }
            }
        }
        Routing {
            nodes,
            words,
            table,
            rows,
            reach,
        }
    }

    /// The link a packet at `node` takes towards `dst`, if any route exists.
    pub fn next_hop(&self, node: u32, dst: u32) -> Option<u32> {
        let dst = dst as usize;
        match self.table[node as usize] {
            Exit::None => None,
            Exit::One { link, row } => {
                let word = self.reach[row as usize * self.words + dst / 64];
                (word >> (dst % 64) & 1 == 1).then_some(link)
            }
            Exit::Many { row } => {
                let l = self.rows[row as usize * self.nodes + dst];
                (l != NO_ROUTE).then_some(l)
            }
        }
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

    /// The compact table gives the routes of the full one: next hops
    /// computed here by brute force (the lowest-numbered link on a shortest
    /// path) on random graphs with leaves, chains, cycles and unreachable
    /// parts.
    #[test]
    #[allow(clippy::needless_range_loop)] // distances indexed as in the textbook
    fn compact_table_matches_brute_force() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut draw = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..200 {
            let nodes = 1 + draw(12) as usize;
            let links: Vec<(u32, u32)> = (0..draw(20))
                .map(|_| (draw(nodes as u64) as u32, draw(nodes as u64) as u32))
                .filter(|(a, b)| a != b)
                .collect();
            let r = Routing::compute(nodes, &links);
            // Hop distances by Floyd-Warshall.
            let inf = u32::MAX / 2;
            let mut d = vec![vec![inf; nodes]; nodes];
            for (n, row) in d.iter_mut().enumerate() {
                row[n] = 0;
            }
            for &(a, b) in &links {
                d[a as usize][b as usize] = 1;
            }
            for k in 0..nodes {
                for i in 0..nodes {
                    for j in 0..nodes {
                        d[i][j] = d[i][j].min(d[i][k] + d[k][j]);
                    }
                }
            }
            for n in 0..nodes {
                for dst in 0..nodes {
                    let want = links.iter().position(|&(a, b)| {
                        a as usize == n
                            && n != dst
                            && d[n][dst] < inf
                            && d[b as usize][dst] + 1 == d[n][dst]
                    });
                    assert_eq!(
                        r.next_hop(n as u32, dst as u32),
                        want.map(|i| i as u32),
                        "{links:?} from {n} to {dst}"
                    );
                }
            }
        }
    }
}
