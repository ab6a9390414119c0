//! Generating glcmds (Quake II's triangle strips and fans) from triangles.
//!
//! The method is the one Quake II's own model compiler used: from each
//! triangle not yet drawn, try a strip and a fan starting at each of its three
//! corners, keep the longest, mark its triangles drawn. A strip or fan may
//! only continue across an edge whose two corners share both vertex *and*
//! texture coordinate, because a glcmd vertex carries its own `s, t`. Edges
//! are looked up in a map, so it runs in time linear in the triangles.

use std::collections::HashMap;

use crate::model::{GlCmd, GlCmdKind, GlVertex, Md2Model, Triangle};

/// A triangle corner as glcmds see it: vertex and texture coordinate.
type Corner = (u16, u16);

fn corner(tri: &Triangle, k: usize) -> Corner {
    (tri.xyz[k % 3], tri.st[k % 3])
}

/// Strips and fans covering every triangle of `model` exactly once, with the
/// same facing as the triangles.
pub(crate) fn generate_glcmds(model: &Md2Model) -> Vec<GlCmd> {
    let tris = model.triangles();
    // Directed edge (a, b), as a triangle lists it, → triangles listing it.
    let mut edges: HashMap<(Corner, Corner), Vec<u32>> = HashMap::new();
    for (i, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            edges
                .entry((corner(tri, k), corner(tri, k + 1)))
                .or_default()
                .push(i as u32);
        }
    }
    let mut used = vec![false; tris.len()];
    let (w, h) = model.skin_size();
    let st = model.tex_coords();
    let gl_vertex = |(xyz, sti): Corner| {
        let c = st[sti as usize];
        GlVertex {
            s: (c.s as f32 + 0.5) / w as f32,
            t: (c.t as f32 + 0.5) / h as f32,
            xyz: xyz as u32,
        }
    };

    let mut cmds = Vec::new();
    let mut scratch = Walk::default();
    let mut best = Walk::default();
    for start in 0..tris.len() {
        if used[start] {
            continue;
        }
        best.clear();
        let mut best_kind = GlCmdKind::Strip;
        for kind in [GlCmdKind::Strip, GlCmdKind::Fan] {
            for startv in 0..3 {
                scratch.run(kind, start, startv, tris, &edges, &used);
                if scratch.tris.len() > best.tris.len() {
                    std::mem::swap(&mut scratch, &mut best);
                    best_kind = kind;
                }
            }
        }
        for &t in &best.tris {
            used[t as usize] = true;
        }
        cmds.push(GlCmd {
            kind: best_kind,
            vertices: best.corners.iter().map(|&c| gl_vertex(c)).collect(),
        });
    }
    cmds
}

/// One attempted strip or fan: its corners and the triangles it covers.
#[derive(Default)]
struct Walk {
    corners: Vec<Corner>,
    tris: Vec<u32>,
}

impl Walk {
    fn clear(&mut self) {
        self.corners.clear();
        self.tris.clear();
    }

    fn run(
        &mut self,
        kind: GlCmdKind,
        start: usize,
        startv: usize,
        tris: &[Triangle],
        edges: &HashMap<(Corner, Corner), Vec<u32>>,
        used: &[bool],
    ) {
        self.clear();
        let first = &tris[start];
        self.corners
            .extend((0..3).map(|k| corner(first, startv + k)));
        self.tris.push(start as u32);
        loop {
            let n = self.corners.len();
            // The next triangle shares an edge with the last one, listed the
            // other way round (so it faces the same way). For a strip the
            // edge is (last, second to last) after an even count of
            // triangles and (second to last, last) after an odd one; for a
            // fan it is (first, last) seen from the new triangle.
            let (a, b) = match kind {
                GlCmdKind::Strip if self.tris.len() % 2 == 1 => {
                    (self.corners[n - 1], self.corners[n - 2])
                }
                GlCmdKind::Strip => (self.corners[n - 2], self.corners[n - 1]),
                GlCmdKind::Fan => (self.corners[0], self.corners[n - 1]),
            };
            let next = edges.get(&(a, b)).and_then(|list| {
                list.iter()
                    .copied()
                    .find(|&t| !used[t as usize] && !self.tris.contains(&t))
            });
            let Some(t) = next else { break };
            let tri = &tris[t as usize];
            let k = (0..3)
                .find(|&k| corner(tri, k) == a && corner(tri, k + 1) == b)
                .expect("the edge map only lists triangles with this edge");
            self.corners.push(corner(tri, k + 2));
            self.tris.push(t);
        }
    }
}
