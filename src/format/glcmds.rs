//! Generating glcmds (Quake II's triangle strips and fans) from triangles.
//!
//! The method is the one Quake II's own model compiler used: from each
//! triangle not yet drawn, try a strip and a fan starting at each of its three
//! corners, keep the longest, mark its triangles drawn. A strip or fan may
//! only continue across an edge whose two corners share both vertex *and*
//! texture coordinate, because a glcmd vertex carries its own `s, t`. Edges
//! are looked up in a map, so it runs in time linear in the triangles.

use std::collections::HashMap;

use super::model::{GlCmd, GlCmdKind, GlVertex, Md2Model, Triangle};

/// A triangle corner as glcmds see it: vertex and texture coordinate.
type Corner = (u16, u16);

fn corner(tri: &Triangle, k: usize) -> Corner {
    (tri.xyz[k % 3], tri.st[k % 3])
}

/// Strips and fans covering every triangle of `model` exactly once, with the
/// same facing as the triangles.
pub(crate) fn generate_glcmds(model: &Md2Model) -> Vec<GlCmd> {
    let tris = model.triangles();
    let mut edges = Edges::new(tris);
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
        if edges.used[start] {
            continue;
        }
        best.clear();
        let mut best_kind = GlCmdKind::Strip;
        for kind in [GlCmdKind::Strip, GlCmdKind::Fan] {
            for startv in 0..3 {
                scratch.run(kind, start, startv, tris, &mut edges);
                if scratch.tris.len() > best.tris.len() {
                    std::mem::swap(&mut scratch, &mut best);
                    best_kind = kind;
                }
            }
        }
        for &t in &best.tris {
            edges.take(t);
        }
        cmds.push(GlCmd {
            kind: best_kind,
            vertices: best.corners.iter().map(|&c| gl_vertex(c)).collect(),
        });
    }
    cmds
}

/// The triangles not yet drawn, by the directed edges they list.
///
/// Each lookup must cost about one step, or a hostile mesh (thousands of
/// copies of one triangle, alternately reversed, which a strip can zig-zag
/// through) makes generation cubic, and `Md2Model::from_bytes` and
/// `to_bytes` with it. So drawn triangles leave their lists, and within one
/// walk a list is scanned from where the walk last left it: its entries
/// before that point are in the walk already, and stay so.
struct Edges {
    /// Directed edge → its list in `lists`.
    ids: HashMap<(Corner, Corner), u32>,
    /// Per edge: (triangle, the corner the edge starts at), undrawn only.
    lists: Vec<Vec<(u32, u8)>>,
    /// Per triangle and corner: its edge's list and its place in it.
    place: Vec<[(u32, u32); 3]>,
    used: Vec<bool>,
    /// The walk a triangle or a list cursor was last touched by: stamps
    /// spare clearing them for every walk.
    walk: u32,
    seen: Vec<u32>,
    cursor: Vec<(u32, u32)>,
}

impl Edges {
    fn new(tris: &[Triangle]) -> Self {
        let mut ids: HashMap<(Corner, Corner), u32> = HashMap::new();
        let mut lists: Vec<Vec<(u32, u8)>> = Vec::new();
        let mut place = Vec::with_capacity(tris.len());
        for (i, tri) in tris.iter().enumerate() {
            let mut p = [(0, 0); 3];
            for (k, slot) in p.iter_mut().enumerate() {
                let id = *ids
                    .entry((corner(tri, k), corner(tri, k + 1)))
                    .or_insert_with(|| {
                        lists.push(Vec::new());
                        (lists.len() - 1) as u32
                    });
                let list = &mut lists[id as usize];
                *slot = (id, list.len() as u32);
                list.push((i as u32, k as u8));
            }
            place.push(p);
        }
        let n_lists = lists.len();
        Edges {
            ids,
            lists,
            place,
            used: vec![false; tris.len()],
            walk: 0,
            seen: vec![0; tris.len()],
            cursor: vec![(0, 0); n_lists],
        }
    }

    /// Starts a walk: nothing seen, every cursor at its list's start.
    fn begin(&mut self, start: u32) {
        self.walk += 1;
        self.seen[start as usize] = self.walk;
    }

    /// An undrawn triangle listing edge (a, b) that this walk has not taken,
    /// with the corner where the edge starts; it is then taken.
    fn next(&mut self, a: Corner, b: Corner) -> Option<(u32, usize)> {
        let id = *self.ids.get(&(a, b))? as usize;
        let list = &self.lists[id];
        let (walk, at) = self.cursor[id];
        let mut at = if walk == self.walk { at as usize } else { 0 };
        while at < list.len() && self.seen[list[at].0 as usize] == self.walk {
            at += 1;
        }
        self.cursor[id] = (self.walk, at as u32);
        let &(t, k) = list.get(at)?;
        self.seen[t as usize] = self.walk;
        Some((t, k as usize))
    }

    /// Marks a triangle drawn: it leaves its three edges' lists.
    fn take(&mut self, t: u32) {
        self.used[t as usize] = true;
        for k in 0..3 {
            let (id, at) = self.place[t as usize][k];
            let list = &mut self.lists[id as usize];
            list.swap_remove(at as usize);
            if let Some(&(moved, mk)) = list.get(at as usize) {
                self.place[moved as usize][mk as usize].1 = at;
            }
        }
    }
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
        edges: &mut Edges,
    ) {
        self.clear();
        let first = &tris[start];
        self.corners
            .extend((0..3).map(|k| corner(first, startv + k)));
        self.tris.push(start as u32);
        edges.begin(start as u32);
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
            let Some((t, k)) = edges.next(a, b) else {
                break;
            };
            self.corners.push(corner(&tris[t as usize], k + 2));
            self.tris.push(t);
        }
    }
}
