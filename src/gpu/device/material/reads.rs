//! Which members of its `Md2Fragment` a material reads, so that its
//! fragment stage declares those inputs alone. A software rasteriser
//! interpolates every input a fragment stage declares, read or not
//! (lavapipe: four unread varyings cost a crowd frame 10%), and the extra
//! per-instance record (previous transform and pose, index, id) is only
//! worth writing for a material that reads what it feeds.

use naga::{Expression, Function, Handle, Module, Statement};

/// A set of `Md2Fragment` members, by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Members(u64);

impl Members {
    pub const NONE: Members = Members(0);
    pub const ALL: Members = Members(u64::MAX);

    pub fn with(self, index: u32) -> Members {
        Members(self.0 | 1u64.checked_shl(index).unwrap_or(0))
    }

    pub fn union(self, other: Members) -> Members {
        Members(self.0 | other.0)
    }

    pub fn contains(self, index: u32) -> bool {
        self.0 & 1u64.checked_shl(index).unwrap_or(0) != 0
    }
}

/// Calls deeper than this are not followed: everything counts as read.
const MAX_DEPTH: u32 = 64;

/// The members of argument `argument` (an `Md2Fragment`) that `function`
/// reads: `in.member` directly, or in a function it passes `in` to. Any
/// other use of the whole struct (stored in a variable, returned, built
/// into another value) counts as reading every member.
pub(crate) fn members_read(module: &Module, function: &Function, argument: u32) -> Members {
    read_by(module, function, argument, 0)
}

fn read_by(module: &Module, function: &Function, argument: u32, depth: u32) -> Members {
    if depth > MAX_DEPTH {
        return Members::ALL;
    }
    let is_argument = |h: Handle<Expression>| matches!(function.expressions[h], Expression::FunctionArgument(i) if i == argument);
    let mut read = Members::NONE;
    for (_, expression) in function.expressions.iter() {
        match *expression {
            Expression::AccessIndex { base, index } if is_argument(base) => {
                read = read.with(index);
            }
            Expression::Access { base, .. } if is_argument(base) => return Members::ALL,
            Expression::Compose { ref components, .. }
                if components.iter().any(|&c| is_argument(c)) =>
            {
                return Members::ALL;
            }
            _ => {}
        }
    }
    if function
        .local_variables
        .iter()
        .any(|(_, v)| v.init.is_some_and(is_argument))
    {
        return Members::ALL;
    }
    read.union(read_in_block(module, &function.body, &is_argument, depth))
}

/// What the statements of `block` read of the argument: through calls that
/// pass it on, or whole where it is stored or returned.
fn read_in_block(
    module: &Module,
    block: &naga::Block,
    is_argument: &dyn Fn(Handle<Expression>) -> bool,
    depth: u32,
) -> Members {
    let mut read = Members::NONE;
    for statement in block.iter() {
        let inner = match statement {
            Statement::Call {
                function,
                arguments,
                ..
            } => {
                let callee = &module.functions[*function];
                arguments
                    .iter()
                    .enumerate()
                    .filter(|&(_, &a)| is_argument(a))
                    .fold(Members::NONE, |r, (k, _)| {
                        r.union(read_by(module, callee, k as u32, depth + 1))
                    })
            }
            Statement::Store { value, .. } if is_argument(*value) => Members::ALL,
            Statement::Return { value: Some(v) } if is_argument(*v) => Members::ALL,
            Statement::Block(inner) => read_in_block(module, inner, is_argument, depth),
            Statement::If { accept, reject, .. } => read_in_block(
                module,
                accept,
                is_argument,
                depth,
            )
            .union(read_in_block(module, reject, is_argument, depth)),
            Statement::Switch { cases, .. } => cases.iter().fold(Members::NONE, |r, case| {
                r.union(read_in_block(module, &case.body, is_argument, depth))
            }),
            Statement::Loop {
                body, continuing, ..
            } => read_in_block(module, body, is_argument, depth).union(read_in_block(
                module,
                continuing,
                is_argument,
                depth,
            )),
            _ => Members::NONE,
        };
        read = read.union(inner);
    }
    read
}
