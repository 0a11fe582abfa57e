//! A [`Program`] compiled to native code: [`JitFunction`].

use crate::error::JitError;
use crate::shims;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::ir::{
    types, AbiParam, FuncRef, InstBuilder, MemFlags, Signature, StackSlot, StackSlotData,
    StackSlotKind, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module, ModuleError, ModuleReloc};
use std::collections::HashMap;
use std::fmt;
use udk_symbolic::emit::{Op, Program, Step, TapeError, TapeInputs, TapeSizes, Val};
use udk_symbolic::expr::{ExprId, Func, Pool, Symbol};

/// Computed values per native function: Cranelift's register allocator and its passes grow
/// faster than linearly on very long functions, so a long program is split into functions of
/// at most this many values (of equal sizes), which pass values to later ones through the
/// scratch buffer, and which Cranelift compiles in parallel (one thread per core).
const CHUNK: usize = 2000;

/// One compiled part of a program: `(inputs, t, scratch, out)`, where `inputs` points to the
/// seven input pointers q, q̇, q̈, p, params, u, λ.
///
/// For a pair of states ([`Lanes::Two`]), `inputs` points to fifteen: the seven of the first
/// state, the seven of the second, and the two times (`t` is unused); `out` points to the two
/// states' output pointers; the scratch holds pairs.
pub(crate) type Chunk = unsafe extern "C" fn(*const *const f64, f64, *mut f64, *mut f64);

/// How many states one call of compiled code evaluates: one, or two in the two lanes of
/// 128-bit vectors ([`JitPair`](crate::JitPair)), every value of the program then a pair of
/// f64 (the first state's, then the second's), read from and written to each state's own
/// buffers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Lanes {
    One,
    Two,
}

impl Lanes {
    /// The type of one program value.
    fn ty(self) -> types::Type {
        match self {
            Lanes::One => types::F64,
            Lanes::Two => types::F64X2,
        }
    }

    /// Bytes of one program value in memory.
    fn bytes(self) -> usize {
        match self {
            Lanes::One => 8,
            Lanes::Two => 16,
        }
    }
}

/// The JIT module that owns the code, freed with the [`JitFunction`].
struct Code(Option<Box<JITModule>>);

// SAFETY: after `finalize_definitions` the module is never used again but to free its memory
// on drop; the code it owns is immutable and reentrant (it writes only through the pointers
// it is given), so it may be called from any thread and freed from any thread.
unsafe impl Send for Code {}
unsafe impl Sync for Code {}

impl Drop for Code {
    fn drop(&mut self) {
        if let Some(module) = self.0.take() {
            // SAFETY: the chunk pointers into this memory die with the `JitFunction` that
            // owns this `Code`.
            unsafe { module.free_memory() };
        }
    }
}

/// A set of outputs compiled to native code by Cranelift: the counterpart of
/// [`udk_symbolic::emit::Tape`], with the same inputs, buffers and errors.
///
/// It executes the same [`Program`] as the tape and the Rust code of
/// [`emit_rust`](udk_symbolic::emit::emit_rust), step by step: one IEEE-754 operation per
/// arithmetic value (no fused multiply-add, no reassociation), `sqrt` and `abs` as machine
/// instructions (correctly rounded, as Rust's), the sine and cosine of one argument by one
/// call of the C library's `sincos` (glibc's, equal bit for bit to its `sin` and `cos`, which
/// Rust's methods call), and every other function through Rust's own `f64` method. Its
/// outputs are therefore bit for bit those of the tape. The calls of the math library whose
/// arguments are inputs or constants run first, and a long program is split into several
/// native functions, compiled in parallel.
pub struct JitFunction {
    pub(crate) chunks: Vec<Chunk>,
    registers: usize,
    width: usize,
    values: usize,
    sizes: TapeSizes,
    _code: Code,
}

impl fmt::Debug for JitFunction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitFunction")
            .field("functions", &self.chunks.len())
            .field("values", &self.values)
            .field("registers", &self.registers)
            .field("outputs", &self.width)
            .finish()
    }
}

impl JitFunction {
    /// Compiles `outputs` of `pool`, lowered by [`Program::new`], into the faster code
    /// ([`Tier::Optimized`]); `name` names the result in errors.
    ///
    /// # Errors
    /// [`JitError::Unsupported`] when Cranelift has no back end for the host,
    /// [`JitError::Compile`] naming the part of `name` that Cranelift failed on.
    pub fn compile(pool: &Pool, outputs: &[ExprId], name: &str) -> Result<Self, JitError> {
        Self::from_program(&Program::new(pool, outputs), name)
    }

    /// Compiles `program` into the faster code ([`Tier::Optimized`]); `name` names the
    /// result in errors.
    ///
    /// # Errors
    /// As [`JitFunction::compile`], and [`JitError::InvalidProgram`] when `program` is not
    /// well formed (see [`Program`]: every value is read after the step that defines it).
    pub fn from_program(program: &Program, name: &str) -> Result<Self, JitError> {
        Self::from_program_in(program, name, Tier::Optimized)
    }

    /// Compiles `program` as `tier` says; `name` names the result in errors. Either tier
    /// computes the same values bit for bit (the same instructions, the registers allocated
    /// differently).
    ///
    /// # Errors
    /// As [`JitFunction::from_program`].
    pub fn from_program_in(program: &Program, name: &str, tier: Tier) -> Result<Self, JitError> {
        Self::build(program, name, tier, Lanes::One)
    }

    /// Compiles `program` as `tier` says, evaluating one state or two per call (`lanes`).
    pub(crate) fn build(
        program: &Program,
        name: &str,
        tier: Tier,
        lanes: Lanes,
    ) -> Result<Self, JitError> {
        validate(program, name)?;
        let layout = Layout::new(program);
        let mut module = module(tier)?;
        let mut imports = Imports::declare(&mut module, name)?;
        let signature = chunk_signature(&module);
        let parts = layout.groups.len();
        let fail = |c: usize, e: &dyn fmt::Debug| JitError::Compile {
            function: format!("{name}, part {} of {parts}", c + 1),
            message: format!("{e:?}"),
        };
        // The IR of each native function, written one after the other (the calls declare the
        // shims in the module), ...
        let mut builder_ctx = FunctionBuilderContext::new();
        let mut functions = Vec::with_capacity(parts);
        for (c, group) in layout.groups.iter().enumerate() {
            let id = module
                .declare_function(&format!("udk_jit_part_{c}"), Linkage::Local, &signature)
                .map_err(|e| fail(c, &e))?;
            let mut ctx = module.make_context();
            ctx.func.signature = signature.clone();
            ctx.func.name = UserFuncName::user(0, id.as_u32());
            Emitter {
                program,
                layout: &layout,
                chunk: c as u32,
                builder: FunctionBuilder::new(&mut ctx.func, &mut builder_ctx),
                module: &mut module,
                imports: &mut imports,
                lanes,
                local: vec![None; program.ops.len()],
                bases: [None; 17],
                params: [Value::from_u32(0); 4],
                stored: HashMap::new(),
            }
            .emit(group);
            functions.push((id, ctx));
        }
        // ... compiled to machine code by Cranelift in parallel, in blocks of consecutive
        // functions on scoped threads, one per core (each function on its own `Context`: the
        // code does not depend on the order). Plain threads, not rayon's pool: a rayon worker
        // waiting for its part could steal a task that needs this very program (compiled on
        // first use, behind a `OnceLock`) and block on itself. ...
        let isa = module.isa();
        let compile = |c: usize, ctx: &mut Context| {
            (ctx.compile(isa, &mut ControlPlane::default()))
                .map(|_| ())
                .map_err(|e| fail(c, &ModuleError::Compilation(e.inner)))
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let per = parts.div_ceil(threads.clamp(1, parts));
        let compile_block = |b: usize, block: &mut [(FuncId, Context)]| {
            (block.iter_mut().enumerate()).try_for_each(|(k, (_, ctx))| compile(b * per + k, ctx))
        };
        std::thread::scope(|scope| {
            let mut blocks = functions.chunks_mut(per).enumerate();
            let first = blocks.next().map(|(_, block)| block);
            let others: Vec<_> = blocks
                .map(|(b, block)| scope.spawn(move || compile_block(b, block)))
                .collect();
            first.map_or(Ok(()), |block| compile_block(0, block))?;
            (others.into_iter())
                .try_for_each(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        })?;
        // ... and placed in the module, which links the calls.
        for (c, (id, ctx)) in functions.iter().enumerate() {
            let code = ctx.compiled_code().expect("compiled above");
            let relocs: Vec<ModuleReloc> = (code.buffer.relocs().iter())
                .map(|r| ModuleReloc::from_mach_reloc(r, &ctx.func, *id))
                .collect();
            module
                .define_function_bytes(
                    *id,
                    u64::from(code.buffer.alignment),
                    code.code_buffer(),
                    &relocs,
                )
                .map_err(|e| fail(c, &e))?;
        }
        module
            .finalize_definitions()
            .map_err(|e| JitError::Compile {
                function: name.to_string(),
                message: e.to_string(),
            })?;
        let ids: Vec<FuncId> = functions.iter().map(|&(id, _)| id).collect();
        let chunks = ids
            .iter()
            .map(|&id| {
                let code = module.get_finalized_function(id);
                // SAFETY: `code` was defined with `chunk_signature`, the C calling convention
                // of the host, which is `Chunk`'s.
                unsafe { std::mem::transmute::<*const u8, Chunk>(code) }
            })
            .collect();
        Ok(JitFunction {
            chunks,
            registers: layout.slots,
            width: program.outputs.len(),
            values: program.steps.len(),
            sizes: program.required(),
            _code: Code(Some(Box::new(module))),
        })
    }

    /// Number of outputs.
    pub fn outputs(&self) -> usize {
        self.width
    }

    /// Length of the scratch buffer [`JitFunction::eval`] needs: the values passed from one
    /// native function to a later one (0 for a program of one function).
    pub fn registers(&self) -> usize {
        self.registers
    }

    /// Number of native functions the program was split into.
    pub fn functions(&self) -> usize {
        self.chunks.len()
    }

    /// How many entries of each input kind the code reads.
    pub fn required(&self) -> TapeSizes {
        self.sizes
    }

    /// Evaluates the outputs at `inputs` into `out`, using `regs` as scratch; allocates
    /// nothing. The same contract as [`Tape::eval`](udk_symbolic::emit::Tape::eval).
    ///
    /// # Errors
    /// [`TapeError`] if a buffer or an input slice is too short; nothing is written then.
    #[inline(always)]
    pub fn eval(
        &self,
        inputs: &TapeInputs<'_>,
        regs: &mut [f64],
        out: &mut [f64],
    ) -> Result<(), TapeError> {
        (self.sizes).check_call(
            inputs,
            (self.registers, regs.len()),
            (self.width, out.len()),
        )?;
        let pointers = [
            inputs.q.as_ptr(),
            inputs.qd.as_ptr(),
            inputs.qdd.as_ptr(),
            inputs.p.as_ptr(),
            inputs.params.as_ptr(),
            inputs.u.as_ptr(),
            inputs.lambda.as_ptr(),
        ];
        for chunk in &self.chunks {
            // SAFETY: the code reads input i of a kind only for i below `self.sizes` (checked
            // above), scratch slots below `self.registers` and outputs below `self.width`.
            unsafe {
                chunk(
                    pointers.as_ptr(),
                    inputs.t,
                    regs.as_mut_ptr(),
                    out.as_mut_ptr(),
                )
            };
        }
        Ok(())
    }
}

/// The largest index of an input the code may read: its byte offset fits an `isize`, as in
/// any slice the caller can pass.
const MAX_INPUT: usize = isize::MAX as usize / 8;

/// Checks what the compiled code relies on to stay within the buffers that
/// [`JitFunction::eval`] checks: every value index is in the program, every operand and output
/// is defined by an earlier step (leaves too, so that [`Program::required`] counts every
/// input read), no value is defined twice, a `sin_cos` step defines the sine and cosine of its
/// argument, and input indices are addressable.
fn validate(program: &Program, name: &str) -> Result<(), JitError> {
    let invalid = |message: String| JitError::InvalidProgram {
        function: name.to_string(),
        message,
    };
    let ops = &program.ops;
    let exists = |v: Val, what: &dyn Fn() -> String| {
        if (v as usize) < ops.len() {
            Ok(())
        } else {
            Err(invalid(format!(
                "{} names value {v}, beyond its {} values",
                what(),
                ops.len()
            )))
        }
    };
    let mut defined = vec![false; ops.len()];
    let read = |v: Val, defined: &[bool], what: &dyn Fn() -> String| {
        exists(v, what)?;
        if defined[v as usize] {
            Ok(())
        } else {
            Err(invalid(format!(
                "{} reads value {v} before a step defines it",
                what()
            )))
        }
    };
    let define = |v: Val, defined: &mut [bool], what: &dyn Fn() -> String| {
        if std::mem::replace(&mut defined[v as usize], true) {
            Err(invalid(format!("{} defines value {v} again", what())))
        } else {
            Ok(())
        }
    };
    for (k, &step) in program.steps.iter().enumerate() {
        let what = || format!("step {k}");
        match step {
            Step::Op(v) => {
                exists(v, &what)?;
                let op = ops[v as usize];
                for w in op.operands() {
                    read(w, &defined, &what)?;
                }
                if let Op::Load(s) = op {
                    let index = match s {
                        Symbol::Time => 0,
                        Symbol::Coordinate(i)
                        | Symbol::Velocity(i)
                        | Symbol::Speed(i)
                        | Symbol::Acceleration(i)
                        | Symbol::Momentum(i)
                        | Symbol::Parameter(i)
                        | Symbol::Input(i)
                        | Symbol::Multiplier(i) => i,
                    };
                    if index > MAX_INPUT {
                        return Err(invalid(format!(
                            "step {k} reads input {index}, beyond any slice"
                        )));
                    }
                }
                define(v, &mut defined, &what)?;
            }
            Step::SinCos { arg, sin, cos } => {
                read(arg, &defined, &what)?;
                exists(sin, &what)?;
                exists(cos, &what)?;
                if ops[sin as usize] != Op::Call(Func::Sin, arg)
                    || ops[cos as usize] != Op::Call(Func::Cos, arg)
                {
                    return Err(invalid(format!(
                        "step {k} computes sin and cos of value {arg} into values {sin} and \
                         {cos}, which are not sin({arg}) and cos({arg})"
                    )));
                }
                define(sin, &mut defined, &what)?;
                define(cos, &mut defined, &what)?;
            }
        }
    }
    for (k, &v) in program.outputs.iter().enumerate() {
        read(v, &defined, &|| format!("output {k}"))?;
    }
    Ok(())
}

/// How much work Cranelift puts into a [`JitFunction`]: the two register allocators of
/// Cranelift 0.127 (its `regalloc_algorithm` setting). Both tiers emit the same IEEE-754
/// instructions in the same order and differ only in which values they keep in registers and
/// which they spill to the stack, so their outputs are equal bit for bit.
///
/// On the release build (`cargo run --release -p udk-jit --example jit_timing`, `guide/jit.md`,
/// "Two tiers"), `Quick` compiles 4–8× faster and its code takes 1.4–1.8× the time per call
/// of `Optimized`'s: 0.23 ms against 0.95 ms and 120 against 85 ns for the terms of a 5-link
/// pendulum on a cart (347 values), 0.59 ms against 3.4 ms and 304 against 178 ns for the
/// UR5's articulated-body program (1070 values).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tier {
    /// Cranelift's single-pass register allocator (`"single_pass"`): fast to compile, more
    /// spills in the code. What a [`Function`](crate::Function) runs first.
    Quick,
    /// Cranelift's backtracking register allocator (`"backtracking"`, its default): the faster
    /// code, what [`JitFunction::compile`] makes.
    #[default]
    Optimized,
}

/// Whether Cranelift has a back end for the host: [`JitError::Unsupported`] saying why not.
pub(crate) fn check_host() -> Result<(), JitError> {
    (cranelift_native::builder().map(|_| ())).map_err(|e| JitError::Unsupported(e.to_string()))
}

/// Length of the scratch buffer that the [`JitFunction`] of `program` will need
/// ([`JitFunction::registers`]), without compiling it.
pub(crate) fn scratch_len(program: &Program) -> usize {
    Layout::new(program).slots
}

/// The JIT module for the host, compiling as `tier` says, with the shims as its symbols.
fn module(tier: Tier) -> Result<JITModule, JitError> {
    let unsupported = |e: &dyn fmt::Display| JitError::Unsupported(e.to_string());
    let mut flags = settings::builder();
    for (flag, value) in [
        ("use_colocated_libcalls", "false"),
        ("is_pic", "false"),
        // Without Cranelift's e-graph optimizer: the program comes CSE'd, and the code runs
        // as many instructions either way (callgrind, `guide/jit.md`), compiled in a quarter
        // less time.
        ("opt_level", "none"),
        (
            "regalloc_algorithm",
            match tier {
                Tier::Quick => "single_pass",
                Tier::Optimized => "backtracking",
            },
        ),
        (
            "enable_verifier",
            if cfg!(debug_assertions) {
                "true"
            } else {
                "false"
            },
        ),
    ] {
        flags.set(flag, value).map_err(|e| unsupported(&e))?;
    }
    let isa = cranelift_native::builder()
        .map_err(|e| unsupported(&e))?
        .finish(settings::Flags::new(flags))
        .map_err(|e| unsupported(&e))?;
    let mut builder = JITBuilder::with_isa(isa, default_libcall_names());
    for (symbol, shim) in Func::ALL.into_iter().filter_map(shims::unary) {
        builder.symbol(symbol, shim as *const u8);
    }
    builder.symbol("udk_jit_sin_cos", shims::SIN_COS as *const u8);
    builder.symbol("udk_jit_powi", shims::powi as *const u8);
    builder.symbol("udk_jit_powf", shims::powf as *const u8);
    builder.symbol("udk_jit_atan2", shims::atan2 as *const u8);
    Ok(JITModule::new(builder))
}

fn chunk_signature(module: &JITModule) -> Signature {
    let pointer = module.target_config().pointer_type();
    let mut s = module.make_signature();
    s.params.push(AbiParam::new(pointer));
    s.params.push(AbiParam::new(types::F64));
    s.params.push(AbiParam::new(pointer));
    s.params.push(AbiParam::new(pointer));
    s
}

/// The shims declared in the module.
struct Imports {
    unary: HashMap<Func, FuncId>,
    sin_cos: FuncId,
    powi: FuncId,
    powf: FuncId,
    atan2: FuncId,
}

impl Imports {
    fn declare(module: &mut JITModule, name: &str) -> Result<Self, JitError> {
        let signature = |params: &[types::Type]| {
            let mut s = module.make_signature();
            s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
            s.returns.push(AbiParam::new(types::F64));
            s
        };
        let (f_f, f_ff, f_fi) = (
            signature(&[types::F64]),
            signature(&[types::F64, types::F64]),
            signature(&[types::F64, types::I32]),
        );
        let pointer = module.target_config().pointer_type();
        let mut f_fpp = module.make_signature();
        f_fpp.params.push(AbiParam::new(types::F64));
        f_fpp.params.push(AbiParam::new(pointer));
        f_fpp.params.push(AbiParam::new(pointer));
        let mut declare = |symbol: &str, s: &Signature| {
            module
                .declare_function(symbol, Linkage::Import, s)
                .map_err(|e| JitError::Compile {
                    function: format!("{name}, import of {symbol}"),
                    message: e.to_string(),
                })
        };
        let mut unary = HashMap::new();
        for f in Func::ALL {
            if let Some((symbol, _)) = shims::unary(f) {
                unary.insert(f, declare(symbol, &f_f)?);
            }
        }
        Ok(Imports {
            unary,
            sin_cos: declare("udk_jit_sin_cos", &f_fpp)?,
            powi: declare("udk_jit_powi", &f_fi)?,
            powf: declare("udk_jit_powf", &f_ff)?,
            atan2: declare("udk_jit_atan2", &f_ff)?,
        })
    }
}

/// How a program is split into native functions and what passes between them.
struct Layout {
    /// The non-leaf steps of each function, in order (at least one function).
    groups: Vec<Vec<Step>>,
    /// The function computing each non-leaf value (`u32::MAX` for leaves).
    chunk_of: Vec<u32>,
    /// The scratch slot of each value used by a later function than its own (`u32::MAX` else).
    slot: Vec<u32>,
    /// Number of scratch slots.
    slots: usize,
    /// (output index, value) of the outputs each function writes: those of the values it
    /// computes, and the leaf outputs in the first function.
    outputs: Vec<Vec<(usize, Val)>>,
}

impl Layout {
    fn new(program: &Program) -> Self {
        let ops = &program.ops;
        let mut chunk_of = vec![u32::MAX; ops.len()];
        // Parts of equal size, at most `CHUNK`, so that they compile in equal times in parallel.
        let computed = (program.steps.iter())
            .filter(|&&s| !matches!(s, Step::Op(v) if ops[v as usize].is_leaf()))
            .count();
        let size = computed.div_ceil(computed.div_ceil(CHUNK).max(1)).max(1);
        let mut groups: Vec<Vec<Step>> = vec![Vec::new()];
        for step in schedule(program) {
            let defined: &[Val] = match step {
                Step::Op(v) if ops[v as usize].is_leaf() => continue,
                Step::Op(ref v) => std::slice::from_ref(v),
                Step::SinCos {
                    ref sin, ref cos, ..
                } => &[*sin, *cos],
            };
            if groups.last().is_some_and(|g| g.len() >= size) {
                groups.push(Vec::new());
            }
            let c = groups.len() - 1;
            for &v in defined {
                chunk_of[v as usize] = c as u32;
            }
            groups[c].push(step);
        }
        let mut slot = vec![u32::MAX; ops.len()];
        let mut slots = 0usize;
        for (c, group) in groups.iter().enumerate() {
            for &step in group {
                let operands: Vec<Val> = match step {
                    Step::Op(v) => ops[v as usize].operands().collect(),
                    Step::SinCos { arg, .. } => vec![arg],
                };
                for w in operands {
                    let from = chunk_of[w as usize];
                    if from != u32::MAX && from as usize != c && slot[w as usize] == u32::MAX {
                        slot[w as usize] = slots as u32;
                        slots += 1;
                    }
                }
            }
        }
        let mut outputs = vec![Vec::new(); groups.len()];
        for (k, &v) in program.outputs.iter().enumerate() {
            let c = chunk_of[v as usize];
            let c = if c == u32::MAX { 0 } else { c as usize };
            outputs[c].push((k, v));
        }
        Layout {
            groups,
            chunk_of,
            slot,
            slots,
            outputs,
        }
    }
}

/// The program's steps in the order the code computes them: first the calls of the math
/// library whose arguments are inputs or constants (the sine and cosine of each joint angle),
/// then the others in the program's order. The C calling convention saves no floating-point
/// register across a call: a call amid the arithmetic sends every live value to the stack and
/// back, a call before it only the results of the earlier calls. The values are the same,
/// the calls being functions of their arguments alone.
fn schedule(program: &Program) -> Vec<Step> {
    let ops = &program.ops;
    let leaf = |v: Val| ops[v as usize].is_leaf();
    let early = |step: &&Step| match **step {
        Step::SinCos { arg, .. } => leaf(arg),
        Step::Op(v) => match ops[v as usize] {
            Op::Call(Func::Sqrt | Func::Abs, _) | Op::Powi(_, 2) => false,
            Op::Call(_, a) | Op::Powi(a, _) => leaf(a),
            Op::Powf(a, b) | Op::Atan2(a, b) => leaf(a) && leaf(b),
            _ => false,
        },
    };
    let (mut steps, rest): (Vec<Step>, Vec<Step>) = program.steps.iter().partition(early);
    steps.extend(rest);
    steps
}

/// Writes one native function of a program.
struct Emitter<'a, 'f> {
    program: &'a Program,
    layout: &'a Layout,
    chunk: u32,
    lanes: Lanes,
    builder: FunctionBuilder<'f>,
    module: &'a mut JITModule,
    imports: &'a mut Imports,
    /// The SSA value of each program value available in this function, by value index.
    local: Vec<Option<Value>>,
    /// The input pointers q, q̇, q̈, p, params, u, λ (a pair's fifteen, then its two output
    /// pointers), loaded on first use.
    bases: [Option<Value>; 17],
    /// The parameters (inputs, t, scratch, out).
    params: [Value; 4],
    /// The values that `sincos` wrote into a stack slot: the slot and the byte offset,
    /// loaded on first use.
    stored: HashMap<Val, (StackSlot, i32)>,
}

/// Memory that the code reads and writes: never trapping (checked by the caller), and aligned
/// for one f64 (a pair of f64 is 8-byte aligned only, as a `Vec<f64>` is).
fn flags(lanes: Lanes) -> MemFlags {
    match lanes {
        Lanes::One => MemFlags::trusted(),
        Lanes::Two => MemFlags::new().with_notrap(),
    }
}

impl Emitter<'_, '_> {
    fn emit(mut self, group: &[Step]) {
        let block = self.builder.create_block();
        self.builder.append_block_params_for_function_params(block);
        self.builder.switch_to_block(block);
        self.builder.seal_block(block);
        let params = self.builder.block_params(block);
        self.params = [params[0], params[1], params[2], params[3]];
        for &step in group {
            match step {
                Step::Op(v) => {
                    let x = self.op(self.program.ops[v as usize]);
                    self.define(v, x);
                }
                Step::SinCos { arg, sin, cos } => {
                    let a = self.value(arg);
                    let slot = self.sin_cos(a);
                    self.stored.insert(sin, (slot, 0));
                    self.stored.insert(cos, (slot, self.lanes.bytes() as i32));
                    for v in [sin, cos] {
                        if self.layout.slot[v as usize] != u32::MAX {
                            let x = self.value(v);
                            self.define(v, x);
                        }
                    }
                }
            }
        }
        for &(k, v) in &self.layout.outputs[self.chunk as usize] {
            let x = self.value(v);
            match self.lanes {
                Lanes::One => {
                    let out = self.params[3];
                    self.store(x, out, k);
                }
                Lanes::Two => {
                    for lane in 0..2u8 {
                        let out = self.pointer(15 + usize::from(lane));
                        let y = self.builder.ins().extractlane(x, lane);
                        let (base, offset) = self.address(out, k * 8);
                        self.builder.ins().store(flags(Lanes::One), y, base, offset);
                    }
                }
            }
        }
        self.builder.ins().return_(&[]);
        self.builder.finalize();
    }

    /// Records `x` as value `v`, and stores it in its scratch slot if a later function reads it.
    fn define(&mut self, v: Val, x: Value) {
        self.local[v as usize] = Some(x);
        let slot = self.layout.slot[v as usize];
        if slot != u32::MAX {
            let scratch = self.params[2];
            self.store(x, scratch, slot as usize);
        }
    }

    /// The SSA value of program value `v`: computed here, a leaf (materialized on first use),
    /// or read from the scratch slot an earlier function wrote.
    fn value(&mut self, v: Val) -> Value {
        if let Some(x) = self.local[v as usize] {
            return x;
        }
        let x = match self.program.ops[v as usize] {
            _ if self.stored.contains_key(&v) => {
                let (slot, offset) = self.stored[&v];
                self.builder.ins().stack_load(self.lanes.ty(), slot, offset)
            }
            Op::Const(bits) => {
                let x = self.builder.ins().f64const(f64::from_bits(bits));
                match self.lanes {
                    Lanes::One => x,
                    Lanes::Two => self.builder.ins().splat(types::F64X2, x),
                }
            }
            Op::Load(s) => self.input(s),
            _ => {
                debug_assert_ne!(self.layout.chunk_of[v as usize], self.chunk);
                let scratch = self.params[2];
                self.load(scratch, self.layout.slot[v as usize] as usize)
            }
        };
        self.local[v as usize] = Some(x);
        x
    }

    fn input(&mut self, s: Symbol) -> Value {
        let (kind, i) = match s {
            Symbol::Time if self.lanes == Lanes::One => return self.params[1],
            Symbol::Time => {
                let times = self.pointer(14);
                return self.at(times, 0, types::F64X2);
            }
            Symbol::Coordinate(i) => (0, i),
            Symbol::Velocity(i) | Symbol::Speed(i) => (1, i),
            Symbol::Acceleration(i) => (2, i),
            Symbol::Momentum(i) => (3, i),
            Symbol::Parameter(i) => (4, i),
            Symbol::Input(i) => (5, i),
            Symbol::Multiplier(i) => (6, i),
        };
        match self.lanes {
            Lanes::One => {
                let base = self.pointer(kind);
                self.load(base, i)
            }
            Lanes::Two => {
                let (first, second) = (self.pointer(kind), self.pointer(kind + 7));
                let x = self.at(first, i * 8, types::F64);
                let y = self.at(second, i * 8, types::F64);
                let pair = self.builder.ins().splat(types::F64X2, x);
                self.builder.ins().insertlane(pair, y, 1)
            }
        }
    }

    /// Pointer `k` of those the function is given (`bases`): an input pointer (k < 15), read
    /// from the `inputs` array, or an output pointer of a pair (15, 16), from the `out` array;
    /// loaded on first use.
    fn pointer(&mut self, k: usize) -> Value {
        if let Some(base) = self.bases[k] {
            return base;
        }
        let pointer = self.module.target_config().pointer_type();
        let bytes = pointer.bytes() as usize;
        let (array, index) = match k {
            15.. => (self.params[3], k - 15),
            _ => (self.params[0], k),
        };
        let base = self.at(array, index * bytes, pointer);
        self.bases[k] = Some(base);
        base
    }

    /// The value (an f64, or a pair) at index `i` of the array at `base`.
    fn load(&mut self, base: Value, i: usize) -> Value {
        self.at(base, i * self.lanes.bytes(), self.lanes.ty())
    }

    fn at(&mut self, base: Value, offset: usize, ty: types::Type) -> Value {
        let (base, offset) = self.address(base, offset);
        self.builder.ins().load(ty, flags(self.lanes), base, offset)
    }

    fn store(&mut self, x: Value, base: Value, i: usize) {
        let (base, offset) = self.address(base, i * self.lanes.bytes());
        self.builder.ins().store(flags(self.lanes), x, base, offset);
    }

    /// `base + offset` as a base and an immediate offset that fits the instruction.
    fn address(&mut self, base: Value, offset: usize) -> (Value, i32) {
        match i32::try_from(offset) {
            Ok(offset) => (base, offset),
            Err(_) => (self.builder.ins().iadd_imm(base, offset as i64), 0),
        }
    }

    /// sin a and cos a by one call of `sincos` (`shims::SIN_COS`) per lane into a stack slot
    /// of their own, returned: the sine at offset 0, the cosine after it, each loaded where
    /// first used.
    fn sin_cos(&mut self, a: Value) -> StackSlot {
        let size = self.lanes.bytes() as u32;
        let slot = (self.builder).create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            2 * size,
            4,
        ));
        let pointer = self.module.target_config().pointer_type();
        let callee = (self.module).declare_func_in_func(self.imports.sin_cos, self.builder.func);
        for (lane, x) in self.lanes_of(a).into_iter().enumerate() {
            let offset = 8 * lane as i32;
            let sin = self.builder.ins().stack_addr(pointer, slot, offset);
            let cos = (self.builder.ins()).stack_addr(pointer, slot, size as i32 + offset);
            self.builder.ins().call(callee, &[x, sin, cos]);
        }
        slot
    }

    /// The f64 arguments of each lane of `a`: `a` itself for one state, its two lanes for a
    /// pair.
    fn lanes_of(&mut self, a: Value) -> Vec<Value> {
        match self.lanes {
            Lanes::One => vec![a],
            Lanes::Two => (0..2)
                .map(|k| self.builder.ins().extractlane(a, k))
                .collect(),
        }
    }

    /// A call of the scalar function `id` on `args`, once per lane, the lanes' results put
    /// together; `int`, an integer argument appended to every call, is shared by the lanes.
    fn call(&mut self, id: FuncId, args: &[Value], int: Option<Value>) -> Value {
        let callee: FuncRef = self.module.declare_func_in_func(id, self.builder.func);
        let lanes: Vec<Vec<Value>> = args.iter().map(|&a| self.lanes_of(a)).collect();
        let results: Vec<Value> = (0..lanes[0].len())
            .map(|k| {
                let mut call_args: Vec<Value> = lanes.iter().map(|l| l[k]).collect();
                call_args.extend(int);
                let call = self.builder.ins().call(callee, &call_args);
                self.builder.inst_results(call)[0]
            })
            .collect();
        match results[..] {
            [x] => x,
            [x, y] => {
                let pair = self.builder.ins().splat(types::F64X2, x);
                self.builder.ins().insertlane(pair, y, 1)
            }
            _ => unreachable!("one or two lanes"),
        }
    }

    fn op(&mut self, op: Op) -> Value {
        match op {
            Op::Const(_) | Op::Load(_) => unreachable!("leaves are materialized on use"),
            Op::Add(a, b) => {
                let (a, b) = (self.value(a), self.value(b));
                self.builder.ins().fadd(a, b)
            }
            Op::Sub(a, b) => {
                let (a, b) = (self.value(a), self.value(b));
                self.builder.ins().fsub(a, b)
            }
            Op::Mul(a, b) => {
                let (a, b) = (self.value(a), self.value(b));
                self.builder.ins().fmul(a, b)
            }
            Op::Div(a, b) => {
                let (a, b) = (self.value(a), self.value(b));
                self.builder.ins().fdiv(a, b)
            }
            Op::Neg(a) => {
                let a = self.value(a);
                self.builder.ins().fneg(a)
            }
            Op::Powi(a, 2) => {
                let a = self.value(a);
                self.builder.ins().fmul(a, a)
            }
            Op::Powi(a, k) => {
                let a = self.value(a);
                let k = self.builder.ins().iconst(types::I32, i64::from(k));
                self.call(self.imports.powi, &[a], Some(k))
            }
            Op::Powf(a, b) => {
                let (a, b) = (self.value(a), self.value(b));
                self.call(self.imports.powf, &[a, b], None)
            }
            Op::Atan2(y, x) => {
                let (y, x) = (self.value(y), self.value(x));
                self.call(self.imports.atan2, &[y, x], None)
            }
            Op::Call(Func::Sqrt, a) => {
                let a = self.value(a);
                self.builder.ins().sqrt(a)
            }
            Op::Call(Func::Abs, a) => {
                let a = self.value(a);
                self.builder.ins().fabs(a)
            }
            Op::Call(f, a) => {
                let a = self.value(a);
                self.call(self.imports.unary[&f], &[a], None)
            }
        }
    }
}
