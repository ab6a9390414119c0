//! md2-wgpu's public API as a listing: one line per public item, path and
//! signature, sorted, rendered from rustdoc's JSON (`cargo rustdoc --
//! -Z unstable-options --output-format json`). The listing is committed
//! (`docs/api/current.txt`, and `docs/api/0.1.0.txt` for the last release):
//! a test renders it afresh and fails where the API changed and the
//! listing or the changelog did not say so (`tests/api.rs`).
//!
//! What a line holds: the kind, the path an app writes (the shortest public
//! one; other public paths are `reexport` lines), and the signature with
//! the types named by crate and name (`wgpu::Device`, `md2_wgpu::anim::Pose`),
//! not by where their crates define them; members follow their type
//! (fields, variants, methods, associated constants, trait impls,
//! including `Send` and `Sync`), each marked `#[deprecated]` where it is.

use std::collections::{BTreeSet, HashMap, VecDeque};

use serde_json::Value;

/// Renders rustdoc's JSON of a crate into its listing.
pub fn listing(json: &str) -> Result<Vec<String>, String> {
    let doc: Value = serde_json::from_str(json).map_err(|e| format!("rustdoc JSON: {e}"))?;
    let api = Api::new(&doc)?;
    Ok(api.lines())
}

/// The elements of a JSON array (none where it is not one).
fn elements(v: &Value) -> impl Iterator<Item = &Value> {
    v.as_array().into_iter().flatten()
}

/// `list` joined by `separator` between `open` and `close`, or nothing
/// where it is empty.
fn wrapped(list: &[String], open: &str, separator: &str, close: &str) -> String {
    if list.is_empty() {
        String::new()
    } else {
        format!("{open}{}{close}", list.join(separator))
    }
}

/// A constant's value as the listing shows it: a literal as written (a
/// changed figure is a changed line), anything computed as `_`, and text
/// longer than a line (the WGSL, which changes with every shader edit: the
/// changelog says what changed in it) elided.
fn literal(expr: Option<&str>) -> String {
    let expr = expr.unwrap_or("_");
    let literal = expr.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '"')
        || expr == "true"
        || expr == "false";
    if !literal {
        "_".into()
    } else if expr.len() > 60 {
        "\"…\"".into()
    } else {
        expr.to_string()
    }
}

struct Api<'a> {
    index: &'a serde_json::Map<String, Value>,
    paths: &'a serde_json::Map<String, Value>,
    crates: &'a serde_json::Map<String, Value>,
    root: String,
    crate_name: String,
    /// The public path of each item reached, shortest first.
    public: HashMap<String, Vec<String>>,
}

fn id_of(v: &Value) -> Option<String> {
    match v {
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

impl<'a> Api<'a> {
    fn new(doc: &'a Value) -> Result<Api<'a>, String> {
        let obj = |key: &str| {
            doc.get(key)
                .and_then(Value::as_object)
                .ok_or_else(|| format!("rustdoc JSON without {key:?}"))
        };
        let root = doc
            .get("root")
            .and_then(id_of)
            .ok_or("rustdoc JSON without a root")?;
        let index = obj("index")?;
        let crate_name = index
            .get(&root)
            .and_then(|r| r["name"].as_str())
            .ok_or("no root item")?
            .to_string();
        let mut api = Api {
            index,
            paths: obj("paths")?,
            crates: obj("external_crates")?,
            root,
            crate_name,
            public: HashMap::new(),
        };
        api.walk();
        Ok(api)
    }

    fn item(&self, id: &str) -> Option<&'a Value> {
        self.index.get(id)
    }

    /// Every public item reachable from the root, breadth first, so each
    /// item's first path is its shortest.
    fn walk(&mut self) {
        let mut queue = VecDeque::from([(self.root.clone(), self.crate_name.clone())]);
        let mut seen_modules = BTreeSet::new();
        while let Some((id, path)) = queue.pop_front() {
            let Some(item) = self.item(&id) else { continue };
            let Some(module) = item["inner"].get("module") else {
                continue;
            };
            if !seen_modules.insert(path.clone()) {
                continue;
            }
            for child in elements(&module["items"]) {
                let Some(child_id) = id_of(child) else {
                    continue;
                };
                let Some(child_item) = self.item(&child_id) else {
                    continue;
                };
                if child_item["visibility"] != "public" {
                    continue;
                }
                if let Some(using) = child_item["inner"].get("use") {
                    let name = using["name"].as_str().unwrap_or("?");
                    let Some(target) = using.get("id").and_then(id_of) else {
                        continue;
                    };
                    if using["is_glob"].as_bool() == Some(true) {
                        // A glob re-export of a module: its items at this path.
                        queue.push_back((target, path.clone()));
                        continue;
                    }
                    let child_path = format!("{path}::{name}");
                    if self.item(&target).is_some() {
                        self.reach(&target, &child_path, &mut queue);
                    } else {
                        // An external crate's item (wgpu, glam, image).
                        self.public
                            .entry(format!("extern:{child_path}"))
                            .or_default()
                            .push(child_path.clone());
                    }
                    continue;
                }
                let name = child_item["name"].as_str().unwrap_or("?");
                let child_path = format!("{path}::{name}");
                self.reach(&child_id, &child_path, &mut queue);
            }
        }
    }

    fn reach(&mut self, id: &str, path: &str, queue: &mut VecDeque<(String, String)>) {
        let paths = self.public.entry(id.to_string()).or_default();
        if !paths.iter().any(|p| p == path) {
            paths.push(path.to_string());
        }
        if self
            .item(id)
            .is_some_and(|i| i["inner"].get("module").is_some())
        {
            queue.push_back((id.to_string(), path.to_string()));
        }
    }

    fn lines(&self) -> Vec<String> {
        let mut out = BTreeSet::new();
        for (id, paths) in &self.public {
            if let Some(path) = id.strip_prefix("extern:") {
                out.insert(format!("reexport {path} (another crate)"));
                continue;
            }
            let mut sorted = paths.clone();
            sorted.sort_by_key(|p| (p.matches("::").count(), p.clone()));
            let canonical = &sorted[0];
            for other in &sorted[1..] {
                out.insert(format!("reexport {other} = {canonical}"));
            }
            if let Some(item) = self.item(id) {
                self.describe(item, canonical, &mut out);
            }
        }
        out.into_iter().collect()
    }

    fn deprecated(item: &Value) -> &'static str {
        if item["deprecation"].is_null() {
            ""
        } else {
            " #[deprecated]"
        }
    }

    fn non_exhaustive(item: &Value) -> &'static str {
        let attrs = item["attrs"].to_string();
        if attrs.contains("non_exhaustive") {
            " #[non_exhaustive]"
        } else {
            ""
        }
    }

    fn describe(&self, item: &Value, path: &str, out: &mut BTreeSet<String>) {
        let inner = &item["inner"];
        let dep = Api::deprecated(item);
        let (kind, body) = match inner.as_object().and_then(|o| o.iter().next()) {
            Some((k, v)) => (k.as_str(), v),
            None => return,
        };
        match kind {
            "module" => {
                out.insert(format!("mod {path}{dep}"));
            }
            "function" => {
                out.insert(format!("fn {path}{}{dep}", self.signature(body)));
            }
            "constant" => {
                let value = literal(body["const"]["expr"].as_str());
                out.insert(format!(
                    "const {path}: {} = {value}{dep}",
                    self.ty(&body["type"])
                ));
            }
            "static" => {
                out.insert(format!("static {path}: {}{dep}", self.ty(&body["type"])));
            }
            "type_alias" => {
                out.insert(format!(
                    "type {path}{} = {}{dep}",
                    self.generics(&body["generics"]),
                    self.ty(&body["type"])
                ));
            }
            "struct" => {
                let ne = Api::non_exhaustive(item);
                out.insert(format!(
                    "struct {path}{}{ne}{dep}",
                    self.generics(&body["generics"])
                ));
                let kind = &body["kind"];
                if let Some(plain) = kind.get("plain") {
                    self.fields(plain["fields"].as_array(), path, out);
                    if plain["has_stripped_fields"].as_bool() == Some(true) {
                        out.insert(format!("field {path}::(private fields)"));
                    }
                } else if let Some(tuple) = kind.get("tuple") {
                    let fields = self.tuple_fields(tuple, "(private)");
                    out.insert(format!("field {path}({})", fields.join(", ")));
                }
                self.impls(body["impls"].as_array(), path, out);
            }
            "enum" => {
                let ne = Api::non_exhaustive(item);
                out.insert(format!(
                    "enum {path}{}{ne}{dep}",
                    self.generics(&body["generics"])
                ));
                for variant_id in elements(&body["variants"]) {
                    let Some(variant) = id_of(variant_id).and_then(|id| self.item(&id)) else {
                        continue;
                    };
                    let name = variant["name"].as_str().unwrap_or("?");
                    let vdep = Api::deprecated(variant);
                    let kind = &variant["inner"]["variant"]["kind"];
                    let shape = if let Some(tuple) = kind.get("tuple") {
                        format!("({})", self.tuple_fields(tuple, "_").join(", "))
                    } else if let Some(fields) = kind.get("struct") {
                        let named: Vec<String> = elements(&fields["fields"])
                            .filter_map(|f| id_of(f).and_then(|id| self.item(&id)))
                            .map(|field| {
                                format!(
                                    "{}: {}",
                                    field["name"].as_str().unwrap_or("?"),
                                    self.ty(&field["inner"]["struct_field"])
                                )
                            })
                            .collect();
                        format!(" {{ {} }}", named.join(", "))
                    } else {
                        String::new()
                    };
                    out.insert(format!("variant {path}::{name}{shape}{vdep}"));
                }
                self.impls(body["impls"].as_array(), path, out);
            }
            "trait" => {
                out.insert(format!(
                    "trait {path}{}{dep}",
                    self.generics(&body["generics"])
                ));
                for member in elements(&body["items"]) {
                    if let Some(m) = id_of(member).and_then(|id| self.item(&id)) {
                        self.member(m, path, out);
                    }
                }
            }
            "macro" | "proc_macro" => {
                out.insert(format!("macro {path}{dep}"));
            }
            _ => {
                out.insert(format!("{kind} {path}{dep}"));
            }
        }
    }

    /// A tuple struct's or variant's fields' types (`hidden` for one rustdoc
    /// left out).
    fn tuple_fields(&self, tuple: &Value, hidden: &str) -> Vec<String> {
        elements(tuple)
            .map(|f| match id_of(f).and_then(|id| self.item(&id)) {
                Some(field) => self.ty(&field["inner"]["struct_field"]),
                None => hidden.into(),
            })
            .collect()
    }

    fn fields(&self, ids: Option<&Vec<Value>>, path: &str, out: &mut BTreeSet<String>) {
        for id in ids.into_iter().flatten() {
            let Some(field) = id_of(id).and_then(|id| self.item(&id)) else {
                continue;
            };
            if field["visibility"] != "public" {
                continue;
            }
            out.insert(format!(
                "field {path}::{}: {}{}",
                field["name"].as_str().unwrap_or("?"),
                self.ty(&field["inner"]["struct_field"]),
                Api::deprecated(field)
            ));
        }
    }

    fn impls(&self, ids: Option<&Vec<Value>>, path: &str, out: &mut BTreeSet<String>) {
        for id in ids.into_iter().flatten() {
            let Some(imp) = id_of(id).and_then(|id| self.item(&id)) else {
                continue;
            };
            let body = &imp["inner"]["impl"];
            if !body["blanket_impl"].is_null() {
                continue;
            }
            match body.get("trait").filter(|t| !t.is_null()) {
                // Marker traits of the compiler's own that no stable code
                // can name or bound by.
                Some(tr)
                    if ["Freeze", "UnsafeUnpin", "StructuralPartialEq"]
                        .contains(&tr["path"].as_str().unwrap_or("")) => {}
                Some(tr) => {
                    let negative = if body["is_negative"].as_bool() == Some(true) {
                        "!"
                    } else {
                        ""
                    };
                    out.insert(format!(
                        "impl {negative}{} for {path}",
                        self.path_of(tr, false)
                    ));
                }
                None => {
                    for member in elements(&body["items"]) {
                        if let Some(m) = id_of(member).and_then(|id| self.item(&id))
                            && m["visibility"] == "public"
                        {
                            self.member(m, path, out);
                        }
                    }
                }
            }
        }
    }

    fn member(&self, m: &Value, path: &str, out: &mut BTreeSet<String>) {
        let name = m["name"].as_str().unwrap_or("?");
        let dep = Api::deprecated(m);
        let inner = &m["inner"];
        if let Some(f) = inner.get("function") {
            out.insert(format!("fn {path}::{name}{}{dep}", self.signature(f)));
        } else if let Some(c) = inner.get("assoc_const") {
            let value = literal(c["value"].as_str());
            out.insert(format!(
                "const {path}::{name}: {} = {value}{dep}",
                self.ty(&c["type"])
            ));
        } else if let Some(t) = inner.get("assoc_type") {
            let bounds = self.bounds(t["bounds"].as_array());
            out.insert(format!("type {path}::{name}{bounds}{dep}"));
        }
    }

    fn signature(&self, f: &Value) -> String {
        let header = &f["header"];
        let mut prefix = String::new();
        for (key, word) in [
            ("is_const", "const "),
            ("is_async", "async "),
            ("is_unsafe", "unsafe "),
        ] {
            if header[key].as_bool() == Some(true) {
                prefix.push_str(word);
            }
        }
        let sig = &f["sig"];
        let inputs: Vec<String> = elements(&sig["inputs"])
            .map(|pair| {
                // Parameter names are not part of what a caller writes.
                let name = pair[0].as_str().unwrap_or("_");
                let ty = self.ty(&pair[1]);
                match (name, ty.as_str()) {
                    ("self", "Self") => "self".into(),
                    ("self", "&Self") => "&self".into(),
                    ("self", "&mut Self") => "&mut self".into(),
                    _ => ty,
                }
            })
            .collect();
        let output = self.output(&sig["output"]);
        let generics = self.generics(&f["generics"]);
        let wheres = self.wheres(&f["generics"]);
        let prefix = if prefix.is_empty() {
            String::new()
        } else {
            format!(" [{}]", prefix.trim_end())
        };
        format!("{generics}({}){output}{wheres}{prefix}", inputs.join(", "))
    }

    /// A function's return type as ` -> T`, or nothing for `()`.
    fn output(&self, output: &Value) -> String {
        if output.is_null() {
            String::new()
        } else {
            format!(" -> {}", self.ty(output))
        }
    }

    fn generics(&self, g: &Value) -> String {
        let params: Vec<String> = elements(&g["params"])
            .filter_map(|p| {
                let name = p["name"].as_str().unwrap_or("?");
                let kind = &p["kind"];
                if let Some(t) = kind.get("type") {
                    if t["is_synthetic"].as_bool() == Some(true) {
                        return None;
                    }
                    return Some(format!("{name}{}", self.bounds(t["bounds"].as_array())));
                }
                if let Some(c) = kind.get("const") {
                    return Some(format!("const {name}: {}", self.ty(&c["type"])));
                }
                Some(name.to_string())
            })
            .collect();
        wrapped(&params, "<", ", ", ">")
    }

    fn wheres(&self, g: &Value) -> String {
        let preds: Vec<String> = elements(&g["where_predicates"])
            .filter_map(|p| {
                let b = p.get("bound_predicate")?;
                Some(format!(
                    "{}{}",
                    self.ty(&b["type"]),
                    self.bounds(b["bounds"].as_array())
                ))
            })
            .collect();
        wrapped(&preds, " where ", ", ", "")
    }

    fn bounds(&self, bounds: Option<&Vec<Value>>) -> String {
        let list: Vec<String> = bounds
            .into_iter()
            .flatten()
            .map(|b| {
                if let Some(t) = b.get("trait_bound") {
                    let maybe = if t["modifier"] == "maybe" { "?" } else { "" };
                    format!("{maybe}{}", self.path_of(&t["trait"], false))
                } else if let Some(l) = b.get("outlives") {
                    l.as_str().unwrap_or("'?").to_string()
                } else {
                    "use<..>".into()
                }
            })
            .collect();
        wrapped(&list, ": ", " + ", "")
    }

    /// A path to an item: the crate's public path where it has one, else
    /// the crate's name and the item's, with its generic arguments.
    fn path_of(&self, p: &Value, _value: bool) -> String {
        let id = p.get("id").and_then(id_of);
        let written = p["path"].as_str().unwrap_or("?");
        let mut name = match id.as_deref() {
            Some(id) => match self.public.get(id) {
                Some(paths) if !paths.is_empty() => {
                    let mut sorted = paths.clone();
                    sorted.sort_by_key(|p| (p.matches("::").count(), p.clone()));
                    sorted[0].clone()
                }
                _ => self
                    .external_name(id)
                    .unwrap_or_else(|| written.to_string()),
            },
            None => written.to_string(),
        };
        if let Some(args) = p.get("args").filter(|a| !a.is_null()) {
            name.push_str(&self.args(args));
        }
        name
    }

    /// `crate::Name` of an item by its summary in `paths`.
    fn external_name(&self, id: &str) -> Option<String> {
        let summary = self.paths.get(id)?;
        let segments = summary["path"].as_array()?;
        let last = segments.last()?.as_str()?;
        let krate = summary.get("crate_id").and_then(id_of)?;
        let crate_name = if krate == "0" {
            self.crate_name.clone()
        } else {
            self.crates
                .get(&krate)
                .and_then(|c| c["name"].as_str())
                .unwrap_or("?")
                .to_string()
        };
        // The standard library's names read as they are written.
        if ["std", "core", "alloc"].contains(&crate_name.as_str()) {
            return Some(last.to_string());
        }
        Some(format!("{crate_name}::{last}"))
    }

    fn args(&self, args: &Value) -> String {
        if let Some(angle) = args.get("angle_bracketed") {
            let mut list: Vec<String> = elements(&angle["args"])
                .map(|a| {
                    if let Some(t) = a.get("type") {
                        self.ty(t)
                    } else if let Some(l) = a.get("lifetime") {
                        l.as_str().unwrap_or("'?").to_string()
                    } else if let Some(c) = a.get("const") {
                        c["expr"].as_str().unwrap_or("_").to_string()
                    } else {
                        "_".into()
                    }
                })
                .collect();
            for c in elements(&angle["constraints"]) {
                let name = c["name"].as_str().unwrap_or("?");
                if let Some(eq) = c["binding"].get("equality") {
                    let value = eq.get("type").map_or("_".into(), |t| self.ty(t));
                    list.push(format!("{name} = {value}"));
                } else if let Some(bounds) = c["binding"].get("constraint") {
                    list.push(format!("{name}{}", self.bounds(bounds.as_array())));
                }
            }
            wrapped(&list, "<", ", ", ">")
        } else if let Some(paren) = args.get("parenthesized") {
            let inputs: Vec<String> = elements(&paren["inputs"]).map(|t| self.ty(t)).collect();
            let output = self.output(&paren["output"]);
            format!("({}){output}", inputs.join(", "))
        } else {
            String::new()
        }
    }

    fn ty(&self, t: &Value) -> String {
        let Some((kind, v)) = t.as_object().and_then(|o| o.iter().next()) else {
            return "?".into();
        };
        match kind.as_str() {
            "resolved_path" => self.path_of(v, true),
            "primitive" | "generic" => v.as_str().unwrap_or("?").to_string(),
            "borrowed_ref" => {
                let lifetime = v["lifetime"]
                    .as_str()
                    .map_or(String::new(), |l| format!("{l} "));
                let mutable = if v["is_mutable"].as_bool() == Some(true) {
                    "mut "
                } else {
                    ""
                };
                format!("&{lifetime}{mutable}{}", self.ty(&v["type"]))
            }
            "raw_pointer" => {
                let m = if v["is_mutable"].as_bool() == Some(true) {
                    "mut"
                } else {
                    "const"
                };
                format!("*{m} {}", self.ty(&v["type"]))
            }
            "slice" => format!("[{}]", self.ty(v)),
            "array" => format!(
                "[{}; {}]",
                self.ty(&v["type"]),
                v["len"].as_str().unwrap_or("_")
            ),
            "tuple" => {
                let parts: Vec<String> = elements(v).map(|t| self.ty(t)).collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            "impl_trait" => format!("impl{}", self.bounds(v.as_array()).replacen(':', "", 1)),
            "dyn_trait" => {
                let traits: Vec<String> = elements(&v["traits"])
                    .map(|t| self.path_of(&t["trait"], false))
                    .collect();
                let lifetime = v["lifetime"]
                    .as_str()
                    .map_or(String::new(), |l| format!(" + {l}"));
                format!("dyn {}{lifetime}", traits.join(" + "))
            }
            "qualified_path" => format!(
                "<{} as {}>::{}",
                self.ty(&v["self_type"]),
                v.get("trait")
                    .filter(|t| !t.is_null())
                    .map_or("?".into(), |t| self.path_of(t, false)),
                v["name"].as_str().unwrap_or("?")
            ),
            "function_pointer" => {
                let sig = &v["sig"];
                let inputs: Vec<String> = elements(&sig["inputs"])
                    .map(|pair| self.ty(&pair[1]))
                    .collect();
                let output = self.output(&sig["output"]);
                format!("fn({}){output}", inputs.join(", "))
            }
            "infer" => "_".into(),
            other => other.to_string(),
        }
    }
}
