//! What real GPUs punish and a software rasteriser does not, decided in
//! naga's IR: a test (or a host, for its own shaders) runs [`check`] over a
//! module and gets every place that breaks a rule, named by entry point,
//! function, variable and line.
//!
//! The rules, and why (`shaders/README.md` has the measurements):
//!
//! - [`Rule::VaryingUniformIndex`]: an array (or vector, or matrix) in the
//!   uniform address space indexed by a value that differs between the
//!   invocations of one draw or dispatch. Uniform buffers are constant
//!   buffers on NVIDIA: a read whose address differs across the lanes of a
//!   warp is split into one read per distinct address. Quake II's normal
//!   table as a uniform, indexed by each vertex's own normal byte, made the
//!   crate's vertex stage 1.7 to 1.9 times slower than float morph targets
//!   on an NVIDIA H200; the same table in a storage buffer made it faster
//!   than them. lavapipe measured the two as equal.
//! - [`Rule::DynamicLocalIndex`]: in a vertex or fragment stage, a
//!   function-local or private array indexed by anything but a constant.
//!   GPUs keep such an array in registers only while every index is known
//!   at compile time; otherwise it goes to per-invocation memory (a spill),
//!   on the stages that run most often.
//!
//! "Varies" is decided conservatively, from the sources of variation the IR
//! shows: stage inputs (vertex and instance index, locations, every other
//! built-in but the workgroup's id and counts and the draw's base indices),
//! every read of a storage buffer, a texture, workgroup or private memory,
//! atomics and subgroup operations, and everything computed from them,
//! including a local variable stored to under a branch on a varying value
//! and every local a loop stores to when the loop's exit varies. A value
//! that only depends on uniforms, constants and loop counters over them is
//! uniform. Functions are analysed once per combination of varying
//! arguments, so a helper indexed by a loop counter in one entry point and
//! by an invocation's id in another is judged at each call.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::rc::Rc;

use naga::valid::{FunctionInfo, ModuleInfo};
use naga::{
    AddressSpace, Binding, Block, BuiltIn, Expression, Function, GlobalVariable, Handle,
    LocalVariable, Module, ShaderStage, Statement, TypeInner,
};

/// A rule of [`check`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// A uniform-address-space array, vector or matrix indexed by a value
    /// that varies across the invocations of a draw or dispatch.
    VaryingUniformIndex,
    /// A function-local or private array indexed by a value that is not a
    /// constant, in a vertex or fragment stage.
    DynamicLocalIndex,
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Rule::VaryingUniformIndex => "a uniform indexed by a varying value",
            Rule::DynamicLocalIndex => "a local array indexed dynamically",
        })
    }
}

/// One place that breaks a [`Rule`].
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Finding {
    /// The rule broken.
    pub rule: Rule,
    /// The entry point whose invocations run it.
    pub entry_point: String,
    /// The function the indexing expression is in (the entry point's own
    /// name when it is there).
    pub function: String,
    /// The variable indexed: the uniform's name, or the local array's.
    pub variable: String,
    /// The expression's line in the source given to [`check`] (1-based),
    /// and that line's text, where naga kept its span.
    pub line: Option<(u32, String)>,
    /// Where the index's variation comes from ([`Rule::VaryingUniformIndex`]).
    pub varies_because: Option<String>,
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: `{}` in {} (entry point {})",
            self.rule, self.variable, self.function, self.entry_point
        )?;
        if let Some((line, text)) = &self.line {
            write!(f, ", line {line}: `{}`", text.trim())?;
        }
        if let Some(why) = &self.varies_because {
            write!(f, "; the index varies with {why}")?;
        }
        Ok(())
    }
}

/// Every place in `module` that breaks a [`Rule`], entry point by entry
/// point (sorted, each once). `info` is what naga's validator returned for
/// the module; `source` the WGSL it was parsed from, for line numbers.
pub fn check(module: &Module, info: &ModuleInfo, source: Option<&str>) -> Vec<Finding> {
    let mut found = BTreeSet::new();
    for (index, entry) in module.entry_points.iter().enumerate() {
        let mut analysis = Analysis {
            module,
            info,
            stage: entry.stage,
            summaries: HashMap::new(),
            raw: BTreeSet::new(),
        };
        let args: Vec<Arg> = entry
            .function
            .arguments
            .iter()
            .map(|arg| Arg {
                value: input_varies(entry.stage, arg.name.as_deref(), arg.binding.as_ref()),
                content: None,
            })
            .collect();
        let fn_info = info.get_entry_point(index);
        analysis.function(Callee::Entry, &entry.function, fn_info, &args);
        for raw in analysis.raw {
            let function = match raw.callee {
                Callee::Entry => &entry.function,
                Callee::Function(handle) => &module.functions[handle],
            };
            let name = match raw.callee {
                Callee::Entry => entry.name.clone(),
                Callee::Function(_) => function.name.clone().unwrap_or_else(|| "?".into()),
            };
            let span = function.expressions.get_span(raw.expression);
            let line = source.filter(|_| span.is_defined()).and_then(|text| {
                let location = span.location(text);
                let line = text.lines().nth(location.line_number as usize - 1)?;
                Some((location.line_number, line.to_string()))
            });
            found.insert(Finding {
                rule: raw.rule,
                entry_point: entry.name.clone(),
                function: name,
                variable: raw.variable,
                line,
                varies_because: raw.origin.map(|o| o.to_string()),
            });
        }
    }
    found.into_iter().collect()
}

/// [`check`] of WGSL text, parsed and validated with naga's default
/// capabilities (what every WebGPU adapter offers); the error says why it
/// did not parse or validate.
pub fn check_wgsl(name: &str, source: &str) -> Result<Vec<Finding>, String> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| e.emit_to_string_with_path(source, name))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| e.emit_to_string_with_path(source, name))?;
    Ok(check(&module, &info, Some(source)))
}

/// Why a value varies: a short description of its first source.
type Origin = Rc<str>;
type Varies = Option<Origin>;

fn origin(text: String) -> Varies {
    Some(Rc::from(text))
}

/// Whether an entry point's argument varies across its invocations.
fn input_varies(stage: ShaderStage, name: Option<&str>, binding: Option<&Binding>) -> Varies {
    let name = name.unwrap_or("?");
    match binding {
        Some(Binding::BuiltIn(builtin)) => match builtin {
            // The same for every invocation of a workgroup (a warp never
            // spans two) or of a draw.
            BuiltIn::WorkGroupId
            | BuiltIn::NumWorkGroups
            | BuiltIn::WorkGroupSize
            | BuiltIn::BaseInstance
            | BuiltIn::BaseVertex
            | BuiltIn::DrawIndex
            | BuiltIn::ViewIndex
            | BuiltIn::SubgroupSize
            | BuiltIn::NumSubgroups => None,
            other => origin(format!("the built-in {other:?} (`{name}`)")),
        },
        Some(Binding::Location { .. }) => origin(format!("the {stage:?} input `{name}`")),
        // A struct of inputs: its members carry the bindings.
        None => origin(format!("the {stage:?} input `{name}`")),
    }
}

/// A function's argument: whether its value varies, and for a pointer,
/// whether what it points at does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Arg {
    value: Varies,
    content: Varies,
}

/// The function being analysed: an entry point's own, or one it calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Callee {
    Entry,
    Function(Handle<Function>),
}

/// What a call needs to know of its callee.
#[derive(Clone, Debug, Default)]
struct Summary {
    result: Varies,
    /// Per argument: what the callee stored through it, where it is a
    /// pointer.
    stored: Vec<Varies>,
}

/// A function, and per argument whether its value and what it points at
/// vary.
type CallKey = (Handle<Function>, Vec<(bool, bool)>);

/// A finding before it is named.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct RawFinding {
    callee: Callee,
    expression: Handle<Expression>,
    rule: Rule,
    variable: String,
    origin: Option<String>,
}

struct Analysis<'a> {
    module: &'a Module,
    info: &'a ModuleInfo,
    stage: ShaderStage,
    /// Per (function, which arguments vary): its summary.
    summaries: HashMap<CallKey, Summary>,
    raw: BTreeSet<RawFinding>,
}

/// Where a pointer leads.
#[derive(Clone, Copy, Debug)]
enum Root {
    Local(Handle<LocalVariable>),
    Global(Handle<GlobalVariable>),
    Argument(u32),
    /// A pointer the IR builds otherwise (none in WGSL today).
    Other,
}

/// The state of one function's analysis.
struct Frame<'a> {
    function: &'a Function,
    args: Vec<Arg>,
    varies: Vec<Varies>,
    locals: Vec<Varies>,
    calls: HashMap<Handle<Expression>, Varies>,
    result: Varies,
    stored: Vec<Varies>,
    changed: bool,
}

/// `into` becomes varying (with `why`) unless it already is; says whether
/// it changed.
fn taint(into: &mut Varies, why: &Varies) -> bool {
    if into.is_none() && why.is_some() {
        *into = why.clone();
        true
    } else {
        false
    }
}

fn either(a: &Varies, b: &Varies) -> Varies {
    a.clone().or_else(|| b.clone())
}

impl<'a> Analysis<'a> {
    fn function(
        &mut self,
        callee: Callee,
        function: &'a Function,
        info: &FunctionInfo,
        args: &[Arg],
    ) -> Summary {
        let mut frame = Frame {
            function,
            args: args.to_vec(),
            varies: vec![None; function.expressions.len()],
            locals: vec![None; function.local_variables.len()],
            calls: HashMap::new(),
            result: None,
            stored: vec![None; args.len()],
            changed: true,
        };
        // Flow-insensitive: a local is varying everywhere once anything
        // varying is stored to it anywhere. Iterate until nothing changes.
        while frame.changed {
            frame.changed = false;
            for (handle, expression) in function.expressions.iter() {
                let varies = self.expression(&frame, handle, expression);
                frame.changed |= taint(&mut frame.varies[handle.index()], &varies);
            }
            for (handle, local) in function.local_variables.iter() {
                if let Some(init) = local.init {
                    let why = frame.varies[init.index()].clone();
                    frame.changed |= taint(&mut frame.locals[handle.index()], &why);
                }
            }
            self.block(&mut frame, &function.body, &None);
        }
        self.findings(callee, &frame, info);
        Summary {
            result: frame.result,
            stored: frame.stored,
        }
    }

    fn root(&self, function: &Function, mut pointer: Handle<Expression>) -> Root {
        loop {
            match function.expressions[pointer] {
                Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                    pointer = base
                }
                Expression::LocalVariable(local) => return Root::Local(local),
                Expression::GlobalVariable(global) => return Root::Global(global),
                Expression::FunctionArgument(index) => return Root::Argument(index),
                _ => return Root::Other,
            }
        }
    }

    fn global_name(&self, global: Handle<GlobalVariable>) -> String {
        self.module.global_variables[global]
            .name
            .clone()
            .unwrap_or_else(|| "?".into())
    }

    /// Whether what `pointer` points at varies (regardless of the
    /// pointer).
    fn content(&self, frame: &Frame<'_>, pointer: Handle<Expression>) -> Varies {
        match self.root(frame.function, pointer) {
            Root::Local(local) => frame.locals[local.index()].clone(),
            Root::Argument(index) => frame
                .args
                .get(index as usize)
                .and_then(|a| a.content.clone()),
            Root::Global(global) => {
                let name = self.global_name(global);
                match self.module.global_variables[global].space {
                    AddressSpace::Uniform | AddressSpace::Immediate => None,
                    AddressSpace::Storage { .. } => {
                        origin(format!("a read of the storage buffer `{name}`"))
                    }
                    AddressSpace::WorkGroup => {
                        origin(format!("a read of the workgroup variable `{name}`"))
                    }
                    AddressSpace::Private => {
                        origin(format!("a read of the private variable `{name}`"))
                    }
                    _ => origin(format!("a read of `{name}`")),
                }
            }
            Root::Other => origin("a pointer the analysis cannot follow".into()),
        }
    }

    fn expression(
        &self,
        frame: &Frame<'_>,
        handle: Handle<Expression>,
        expression: &Expression,
    ) -> Varies {
        let of = |h: Handle<Expression>| frame.varies[h.index()].clone();
        let any = |hs: &[Option<Handle<Expression>>]| {
            hs.iter()
                .flatten()
                .find_map(|h| frame.varies[h.index()].clone())
        };
        match *expression {
            Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
            | Expression::GlobalVariable(_)
            | Expression::LocalVariable(_)
            | Expression::ArrayLength(_)
            | Expression::WorkGroupUniformLoadResult { .. } => None,
            Expression::Compose { ref components, .. } => components
                .iter()
                .find_map(|h| frame.varies[h.index()].clone()),
            Expression::Access { base, index } => either(&of(base), &of(index)),
            Expression::AccessIndex { base, .. } => of(base),
            Expression::Splat { value, .. } => of(value),
            Expression::Swizzle { vector, .. } => of(vector),
            Expression::FunctionArgument(index) => {
                frame.args.get(index as usize).and_then(|a| a.value.clone())
            }
            // What is read says more than where, when both vary.
            Expression::Load { pointer } => either(&self.content(frame, pointer), &of(pointer)),
            Expression::ImageSample { .. } | Expression::ImageLoad { .. } => {
                origin("a texture read".into())
            }
            Expression::ImageQuery { image, .. } => of(image),
            Expression::Unary { expr, .. } => of(expr),
            Expression::Binary { left, right, .. } => either(&of(left), &of(right)),
            Expression::Select {
                condition,
                accept,
                reject,
            } => any(&[Some(condition), Some(accept), Some(reject)]),
            Expression::Derivative { expr, .. } => of(expr),
            Expression::Relational { argument, .. } => of(argument),
            Expression::Math {
                arg,
                arg1,
                arg2,
                arg3,
                ..
            } => any(&[Some(arg), arg1, arg2, arg3]),
            Expression::As { expr, .. } => of(expr),
            Expression::CallResult(_) => frame.calls.get(&handle).cloned().flatten(),
            Expression::AtomicResult { .. } => origin("an atomic operation".into()),
            _ => origin(format!("{expression:?}")),
        }
    }

    /// Walks `block` under `control` (why the control flow reaching it
    /// varies, if it does).
    fn block(&mut self, frame: &mut Frame<'a>, block: &'a Block, control: &Varies) {
        for statement in block.iter() {
            match *statement {
                Statement::Block(ref inner) => self.block(frame, inner, control),
                Statement::If {
                    condition,
                    ref accept,
                    ref reject,
                } => {
                    let control = either(control, &frame.varies[condition.index()]);
                    self.block(frame, accept, &control);
                    self.block(frame, reject, &control);
                }
                Statement::Switch {
                    selector,
                    ref cases,
                } => {
                    let control = either(control, &frame.varies[selector.index()]);
                    for case in cases {
                        self.block(frame, &case.body, &control);
                    }
                }
                Statement::Loop {
                    ref body,
                    ref continuing,
                    break_if,
                } => {
                    let exits = loop_exit(frame, body, continuing, break_if);
                    let control = either(control, &exits);
                    self.block(frame, body, &control);
                    self.block(frame, continuing, &control);
                }
                Statement::Return { value } => {
                    let why = either(
                        control,
                        &value.and_then(|v| frame.varies[v.index()].clone()),
                    );
                    frame.changed |= taint(&mut frame.result, &why);
                }
                Statement::Store { pointer, value } => {
                    let why = either(
                        control,
                        &either(&frame.varies[value.index()], &frame.varies[pointer.index()]),
                    );
                    self.store(frame, pointer, &why);
                }
                Statement::Call {
                    function,
                    ref arguments,
                    result,
                } => {
                    let args: Vec<Arg> = arguments
                        .iter()
                        .map(|&a| Arg {
                            value: frame.varies[a.index()].clone(),
                            content: self
                                .is_pointer(frame.function, a)
                                .then(|| self.content(frame, a))
                                .flatten(),
                        })
                        .collect();
                    let summary = self.call(function, &args);
                    if let Some(result) = result {
                        let why = summary.result.clone();
                        let slot = frame.calls.entry(result).or_insert(None);
                        frame.changed |= taint(slot, &why);
                    }
                    for (&argument, stored) in arguments.iter().zip(&summary.stored) {
                        if stored.is_some() {
                            let why = either(control, stored);
                            self.store(frame, argument, &why);
                        } else if control.is_some() && self.is_pointer(frame.function, argument) {
                            // A store under varying control flow.
                            self.store(frame, argument, control);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn store(&self, frame: &mut Frame<'_>, pointer: Handle<Expression>, why: &Varies) {
        match self.root(frame.function, pointer) {
            Root::Local(local) => frame.changed |= taint(&mut frame.locals[local.index()], why),
            Root::Argument(index) => {
                if let Some(slot) = frame.stored.get_mut(index as usize) {
                    frame.changed |= taint(slot, why);
                }
            }
            // Memory other invocations see is varying when read anyway.
            Root::Global(_) | Root::Other => {}
        }
    }

    fn is_pointer(&self, function: &Function, expression: Handle<Expression>) -> bool {
        matches!(
            self.root(function, expression),
            Root::Local(_) | Root::Argument(_) | Root::Global(_)
        ) && matches!(
            function.expressions[expression],
            Expression::LocalVariable(_)
                | Expression::GlobalVariable(_)
                | Expression::Access { .. }
                | Expression::AccessIndex { .. }
                | Expression::FunctionArgument(_)
        ) && self.pointer_type(function, expression)
    }

    fn pointer_type(&self, function: &Function, expression: Handle<Expression>) -> bool {
        // Arguments are pointers when their declared type is.
        match function.expressions[expression] {
            Expression::FunctionArgument(index) => matches!(
                self.module.types[function.arguments[index as usize].ty].inner,
                TypeInner::Pointer { .. }
            ),
            Expression::LocalVariable(_) | Expression::GlobalVariable(_) => true,
            Expression::Access { base, .. } | Expression::AccessIndex { base, .. } => {
                self.pointer_type(function, base)
            }
            _ => false,
        }
    }

    fn call(&mut self, function: Handle<Function>, args: &[Arg]) -> Summary {
        let key = (
            function,
            args.iter()
                .map(|a| (a.value.is_some(), a.content.is_some()))
                .collect(),
        );
        if let Some(summary) = self.summaries.get(&key) {
            return summary.clone();
        }
        let module = self.module;
        let info = &self.info[function];
        let summary = self.function(
            Callee::Function(function),
            &module.functions[function],
            info,
            args,
        );
        self.summaries.insert(key, summary.clone());
        summary
    }

    fn findings(&mut self, callee: Callee, frame: &Frame<'_>, info: &FunctionInfo) {
        let function = frame.function;
        for (handle, expression) in function.expressions.iter() {
            let Expression::Access { base, index } = *expression else {
                continue;
            };
            let root = self.root(function, base);
            if let Root::Global(global) = root {
                let space = self.module.global_variables[global].space;
                let uniform = matches!(space, AddressSpace::Uniform | AddressSpace::Immediate);
                if let (true, Some(why)) = (uniform, &frame.varies[index.index()]) {
                    self.raw.insert(RawFinding {
                        callee,
                        expression: handle,
                        rule: Rule::VaryingUniformIndex,
                        variable: self.global_name(global),
                        origin: Some(why.to_string()),
                    });
                }
            }
            let drawn = matches!(self.stage, ShaderStage::Vertex | ShaderStage::Fragment);
            if drawn && !is_constant(function, index) && self.local_array(function, info, base) {
                let variable = match root {
                    Root::Local(local) => function.local_variables[local]
                        .name
                        .clone()
                        .unwrap_or_else(|| "?".into()),
                    Root::Global(global) => self.global_name(global),
                    _ => "an array value".into(),
                };
                self.raw.insert(RawFinding {
                    callee,
                    expression: handle,
                    rule: Rule::DynamicLocalIndex,
                    variable,
                    origin: None,
                });
            }
        }
    }

    /// Whether `base` is a function-local or private array: a pointer to
    /// one, or an array value (which the compiler places in memory to
    /// index).
    fn local_array(
        &self,
        function: &Function,
        info: &FunctionInfo,
        base: Handle<Expression>,
    ) -> bool {
        let types = &self.module.types;
        match *info[base].ty.inner_with(types) {
            TypeInner::Pointer {
                base: pointee,
                space,
            } => {
                matches!(space, AddressSpace::Function | AddressSpace::Private)
                    && matches!(types[pointee].inner, TypeInner::Array { .. })
            }
            TypeInner::Array { .. } => {
                // An array value: a local copy, whatever it was loaded from.
                let _ = function;
                true
            }
            _ => false,
        }
    }
}

fn is_constant(function: &Function, expression: Handle<Expression>) -> bool {
    matches!(
        function.expressions[expression],
        Expression::Literal(_)
            | Expression::Constant(_)
            | Expression::Override(_)
            | Expression::ZeroValue(_)
    )
}

/// Why a loop's exit varies between invocations, if it does: its
/// `break if` varies, or a `break`, `continue` or `return` sits under a
/// branch on a varying value (then the locals it stores to differ after
/// it, and between its iterations).
fn loop_exit(
    frame: &Frame<'_>,
    body: &Block,
    continuing: &Block,
    break_if: Option<Handle<Expression>>,
) -> Varies {
    if let Some(why) = break_if.and_then(|c| frame.varies[c.index()].clone()) {
        return Some(why);
    }
    let outer = Leaves {
        inner_loop: false,
        in_switch: false,
    };
    exits(frame, body, &None, outer).or_else(|| exits(frame, continuing, &None, outer))
}

/// Which statements leave the loop being judged, where `exits` looks.
#[derive(Clone, Copy)]
struct Leaves {
    /// Inside a loop within it: `break` and `continue` leave that one.
    inner_loop: bool,
    /// Inside a switch: `break` leaves the switch.
    in_switch: bool,
}

/// The first statement of `block` that leaves the loop under varying
/// control flow, as the reason it varies.
fn exits(frame: &Frame<'_>, block: &Block, control: &Varies, leaves: Leaves) -> Varies {
    for statement in block.iter() {
        let found = match *statement {
            Statement::Break if !leaves.inner_loop && !leaves.in_switch => control.clone(),
            Statement::Continue if !leaves.inner_loop => control.clone(),
            Statement::Return { .. } | Statement::Kill => control.clone(),
            Statement::Block(ref inner) => exits(frame, inner, control, leaves),
            Statement::If {
                condition,
                ref accept,
                ref reject,
            } => {
                let control = either(control, &frame.varies[condition.index()]);
                exits(frame, accept, &control, leaves)
                    .or_else(|| exits(frame, reject, &control, leaves))
            }
            Statement::Switch {
                selector,
                ref cases,
            } => {
                let control = either(control, &frame.varies[selector.index()]);
                let leaves = Leaves {
                    in_switch: true,
                    ..leaves
                };
                cases
                    .iter()
                    .find_map(|case| exits(frame, &case.body, &control, leaves))
            }
            Statement::Loop {
                ref body,
                ref continuing,
                ..
            } => {
                let leaves = Leaves {
                    inner_loop: true,
                    in_switch: false,
                };
                exits(frame, body, control, leaves)
                    .or_else(|| exits(frame, continuing, control, leaves))
            }
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}
