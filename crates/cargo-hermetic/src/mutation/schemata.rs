//! Mutation schemata: the selected functions rewritten once, in the driver's shadow copy, so
//! that every mutant is in the one build and an execution picks it by id.
//!
//! Each site keeps the original expression and hands its value (and operands) to a helper of
//! `hermetic_driver::mutant`, which returns the original unless one of the site's mutants is
//! switched on: `a < b` becomes
//! `match (&(a), &(b)) { (l, r) => ::hermetic_driver::mutant::lt(7, *l < *r, l, r) }`. The
//! original comparison stays in the function, so its coverage counters and comparison hooks
//! are those of the original code. Rewrites are spliced into the text on the same lines, so
//! line numbers (and the coverage goals mapped from them) do not move.
//!
//! The operators are cargo-mutants' (a function body replaced by values of its return type;
//! comparison, boolean and arithmetic operators swapped; `!` and unary `-` deleted), and
//! integer constants changed by one. A rewrite the compiler rejects (an operator on a type the
//! helper does not take, a value the return type has no `Default` for) is left out and the
//! build retried, as cargo-mutants counts such mutants unviable.

use crate::analyze::syntax::Offsets;
use crate::cluster::{Cluster, ModuleBody, ModuleId};
use crate::selection::Selection;
use anyhow::{Context, Result};
use proc_macro2::Span;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{BinOp, Expr, UnOp};

/// One mutant of the selected code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutant {
    /// What the engine sends to switch it on (never 0).
    pub id: u32,
    /// The first id of its site (the driver reports sites reached by it).
    #[serde(skip)]
    pub site: u32,
    /// The file, relative to the crate root.
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    /// The function it is in: `parser::Lexer::next_token`.
    pub function: String,
    /// What it changes: `replace < with <=`.
    pub change: String,
}

/// The helpers' path, as the rewritten code names it.
const HELPERS: &str = "::hermetic_driver::mutant";

/// The selected functions of one file, rewritten.
pub struct RewrittenFile {
    /// Relative to the crate root.
    pub path: PathBuf,
    pub text: String,
    /// Where each site's rewrite is in `text`.
    placed: Vec<Placed>,
}

/// The byte range of `text` that a site's rewrite takes.
#[derive(Debug, Clone, Copy)]
struct Placed {
    first: u32,
    start: usize,
    end: usize,
}

/// One place in the source with its mutants: `first..first + alternatives.len()`.
#[derive(Debug, Clone)]
pub struct Site {
    pub first: u32,
    pub shape: Shape,
    /// Byte range of what the site replaces (for a body: the whole block).
    pub range: (usize, usize),
    /// Lines of the function the site is in.
    pub function_lines: (usize, usize),
    pub function: String,
    pub line: usize,
    pub column: usize,
    /// What each mutant changes, as a user reads it ("replace < with <=").
    pub alternatives: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum Shape {
    /// `l op r` (and `l op= r`), with the operands' byte ranges.
    Binary {
        op: &'static str,
        assign: bool,
        l: (usize, usize),
        r: (usize, usize),
    },
    /// `!x` or `-x`.
    Unary {
        op: &'static str,
        operand: (usize, usize),
    },
    /// An integer literal.
    Constant,
    /// A function body (its block's byte range is the site's), replaced by one of `values`.
    Body { values: Vec<String> },
}

/// A file of the selected code as it was before any rewrite, and its sites.
pub struct SiteFile {
    /// Relative to the crate root.
    pub path: PathBuf,
    pub text: String,
    pub sites: Vec<Site>,
}

/// All sites of the selected code in the copy at `root`, in a fixed order (ids follow it, so a
/// site keeps its id when others are left out).
pub fn find_sites(
    cluster: &Cluster,
    selection: &Selection,
    crate_dir: &Path,
    root: &Path,
) -> Result<Vec<SiteFile>> {
    let mut parsed = Vec::new();
    for (m, module) in cluster.modules.iter().enumerate() {
        if module.body != ModuleBody::File {
            continue;
        }
        let rel = module
            .file
            .strip_prefix(crate_dir)
            .unwrap_or(&module.file)
            .to_path_buf();
        let path = root.join(&rel);
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
        if let Ok(file) = syn::parse_file(&text) {
            parsed.push((m, rel, text, file));
        }
    }
    let files: Vec<syn::File> = parsed.iter().map(|(.., f)| f.clone()).collect();
    let aliases = aliases(&files);
    let mut next = 1u32;
    let mut out = Vec::new();
    for (m, rel, text, file) in parsed {
        let mut finder = Finder {
            cluster,
            selection,
            aliases: &aliases,
            offsets: Offsets::new(&text),
            module: m,
            owner: None,
            params: Vec::new(),
            self_ty: None,
            function: None,
            sites: Vec::new(),
            next: &mut next,
            no_constants: 0,
        };
        finder.items(&file.items, m);
        let sites = finder.sites;
        if !sites.is_empty() {
            out.push(SiteFile {
                path: rel,
                text,
                sites,
            });
        }
    }
    Ok(out)
}

/// The mutants of the sites not `disabled`, and each file with them spliced in.
pub fn rewrite(files: &[SiteFile], disabled: &BTreeSet<u32>) -> (Vec<Mutant>, Vec<RewrittenFile>) {
    let mut mutants = Vec::new();
    let mut out = Vec::new();
    for file in files {
        let mut live: Vec<&Site> = file
            .sites
            .iter()
            .filter(|s| !disabled.contains(&s.first))
            .collect();
        live.sort_by_key(|s| (s.range.0, std::cmp::Reverse(s.range.1)));
        for s in &live {
            for (k, change) in s.alternatives.iter().enumerate() {
                mutants.push(Mutant {
                    id: s.first + k as u32,
                    site: s.first,
                    file: file.path.clone(),
                    line: s.line,
                    column: s.column,
                    function: s.function.clone(),
                    change: change.clone(),
                });
            }
        }
        let mut splicer = Splicer {
            text: &file.text,
            sites: &live,
            out: String::with_capacity(file.text.len() * 2),
            placed: Vec::new(),
        };
        splicer.render((0, file.text.len()), None);
        out.push(RewrittenFile {
            path: file.path.clone(),
            text: splicer.out,
            placed: splicer.placed,
        });
    }
    mutants.sort_by_key(|m| m.id);
    (mutants, out)
}

/// The sites to leave out for a compiler error in `file` (relative to the crate root or
/// absolute) whose primary span is `span` (bytes) at `line`: the innermost site whose rewrite
/// holds the span's start (the rewrites around it are left in; if the error stays, the next
/// build blames the next one out); else, for an error in a selected function outside every
/// rewrite, every site of that function.
pub fn blame(
    files: &[SiteFile],
    rewritten: &[RewrittenFile],
    file: &Path,
    span: Option<(usize, usize)>,
    line: usize,
) -> BTreeSet<u32> {
    let Some(written) = rewritten.iter().find(|f| file.ends_with(&f.path)) else {
        return BTreeSet::new();
    };
    if let Some((start, _)) = span {
        // Rewrites nest: the shortest one holding the start is the innermost.
        if let Some(p) = written
            .placed
            .iter()
            .filter(|p| p.start <= start && start < p.end)
            .min_by_key(|p| p.end - p.start)
        {
            return BTreeSet::from([p.first]);
        }
    }
    files
        .iter()
        .filter(|f| f.path == written.path)
        .flat_map(|f| &f.sites)
        .filter(|s| s.function_lines.0 <= line && line <= s.function_lines.1)
        .map(|s| s.first)
        .collect()
}

struct Finder<'a, 'n> {
    cluster: &'a Cluster,
    selection: &'a Selection,
    aliases: &'a BTreeMap<String, syn::Type>,
    offsets: Offsets,
    module: ModuleId,
    /// The type of the `impl` being walked: its name, and itself for `Self`.
    owner: Option<String>,
    self_ty: Option<syn::Type>,
    /// The type parameters of the `impl` being walked.
    params: Vec<String>,
    /// The function being walked: its display name and lines.
    function: Option<(String, (usize, usize))>,
    sites: Vec<Site>,
    next: &'n mut u32,
    /// Inside an index, a shift amount or a divisor: constants are left alone.
    no_constants: usize,
}

impl Finder<'_, '_> {
    fn items(&mut self, items: &[syn::Item], module: ModuleId) {
        let saved = self.module;
        self.module = module;
        for item in items {
            match item {
                syn::Item::Fn(f) if !skipped(&f.attrs) => {
                    self.function(&f.sig, &f.block, &f.attrs);
                }
                syn::Item::Impl(imp) if !skipped(&imp.attrs) && imp.generics.params.len() < 8 => {
                    let owner = self.owner.replace(type_name(&imp.self_ty));
                    let self_ty = self.self_ty.replace((*imp.self_ty).clone());
                    let params = std::mem::replace(&mut self.params, type_params(&imp.generics));
                    // `Default::default()` in place of `default`'s body calls itself.
                    let default_impl = imp
                        .trait_
                        .as_ref()
                        .and_then(|(_, t, _)| t.segments.last())
                        .is_some_and(|t| t.ident == "Default");
                    for it in &imp.items {
                        if let syn::ImplItem::Fn(f) = it {
                            let calls_itself = default_impl && f.sig.ident == "default";
                            if !skipped(&f.attrs) && !calls_itself {
                                self.function(&f.sig, &f.block, &f.attrs);
                            }
                        }
                    }
                    self.owner = owner;
                    self.self_ty = self_ty;
                    self.params = params;
                }
                syn::Item::Mod(md) if !skipped(&md.attrs) => {
                    let Some((_, inner)) = &md.content else {
                        continue;
                    };
                    let name = md.ident.to_string();
                    let child = self
                        .cluster
                        .modules
                        .iter()
                        .position(|c| c.parent == Some(module) && c.path.last() == Some(&name));
                    if let Some(child) = child {
                        self.items(inner, child);
                    }
                }
                _ => {}
            }
        }
        self.module = saved;
    }

    fn selected(&self, name: &str) -> bool {
        let path = &self.cluster.modules[self.module].path;
        let module_ok = self
            .selection
            .module
            .as_ref()
            .is_none_or(|m| path.len() >= m.len() && path[..m.len()] == m[..]);
        let display = self.display(name);
        let function_ok = self
            .selection
            .function
            .as_ref()
            .is_none_or(|f| f == name || display.ends_with(&format!("::{f}")) || display == *f);
        module_ok && function_ok
    }

    /// `parser::Lexer::next_token`, as a user names it.
    fn display(&self, name: &str) -> String {
        let mut parts = self.cluster.modules[self.module].path.clone();
        parts.extend(self.owner.clone());
        parts.push(name.to_string());
        parts.join("::")
    }

    fn function(&mut self, sig: &syn::Signature, block: &syn::Block, attrs: &[syn::Attribute]) {
        let name = sig.ident.to_string();
        if sig.constness.is_some()
            || sig.asyncness.is_some()
            || sig.unsafety.is_some()
            || sig.abi.is_some()
            || sig.variadic.is_some()
            || attrs.iter().any(|a| a.path().is_ident("no_mangle"))
            || !self.selected(&name)
        {
            return;
        }
        let lines = (
            sig.fn_token.span.start().line,
            block.brace_token.span.close().end().line,
        );
        self.function = Some((self.display(&name), lines));
        let mut params = self.params.clone();
        params.extend(type_params(&sig.generics));
        let types = Types {
            cluster: self.cluster,
            aliases: self.aliases,
            params,
            self_ty: self.self_ty.as_ref(),
        };
        if let Some(values) = types.replacements(&sig.output) {
            let open = block.brace_token.span.open();
            let range = (
                self.offsets.offset(open.start()),
                self.offsets.offset(block.brace_token.span.close().end()),
            );
            let shown = match &sig.output {
                syn::ReturnType::Default => name.clone(),
                syn::ReturnType::Type(_, t) => {
                    format!("{name} -> {}", squash(&quote::quote!(#t).to_string()))
                }
            };
            let alternatives = values
                .iter()
                .map(|v| format!("replace {shown} with {v}"))
                .collect();
            self.push(Shape::Body { values }, range, open, alternatives);
        }
        self.visit_block(block);
        self.function = None;
    }

    fn push(&mut self, shape: Shape, range: (usize, usize), at: Span, alternatives: Vec<String>) {
        let Some((function, function_lines)) = self.function.clone() else {
            return;
        };
        let first = *self.next;
        *self.next += alternatives.len() as u32;
        self.sites.push(Site {
            first,
            shape,
            range,
            function_lines,
            function,
            line: at.start().line,
            column: at.start().column + 1,
            alternatives,
        });
    }

    fn range(&self, span: Span) -> (usize, usize) {
        (
            self.offsets.offset(span.start()),
            self.offsets.offset(span.end()),
        )
    }

    fn binary(&mut self, e: &syn::ExprBinary) {
        let (op, assign, alternatives): (&'static str, bool, &[&str]) = match e.op {
            BinOp::Eq(_) => ("==", false, &["!="]),
            BinOp::Ne(_) => ("!=", false, &["=="]),
            BinOp::Lt(_) => ("<", false, &["==", ">", "<="]),
            BinOp::Gt(_) => (">", false, &["==", "<", ">="]),
            BinOp::Le(_) => ("<=", false, &[">"]),
            BinOp::Ge(_) => (">=", false, &["<"]),
            BinOp::And(_) => ("&&", false, &["||"]),
            BinOp::Or(_) => ("||", false, &["&&"]),
            BinOp::Add(_) => ("+", false, &["-", "*"]),
            BinOp::Sub(_) => ("-", false, &["+", "/"]),
            BinOp::Mul(_) => ("*", false, &["+", "/"]),
            BinOp::Div(_) => ("/", false, &["%", "*"]),
            BinOp::Rem(_) => ("%", false, &["/", "+"]),
            BinOp::AddAssign(_) => ("+", true, &["-", "*"]),
            BinOp::SubAssign(_) => ("-", true, &["+", "/"]),
            BinOp::MulAssign(_) => ("*", true, &["+", "/"]),
            BinOp::DivAssign(_) => ("/", true, &["%", "*"]),
            BinOp::RemAssign(_) => ("%", true, &["/", "+"]),
            _ => return,
        };
        // `if let .. && ..` chains are not boolean operators.
        if matches!(op, "&&" | "||") && (has_let(&e.left) || has_let(&e.right)) {
            return;
        }
        let eq = if assign { "=" } else { "" };
        let alternatives = alternatives
            .iter()
            .map(|a| format!("replace {op}{eq} with {a}{eq}"))
            .collect();
        let span = e.span();
        self.push(
            Shape::Binary {
                op,
                assign,
                l: self.range(e.left.span()),
                r: self.range(e.right.span()),
            },
            self.range(span),
            e.op.span(),
            alternatives,
        );
    }
}

impl<'ast> Visit<'ast> for Finder<'_, '_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            // A constant index, shift or divisor needs no check; a mutated one would (a goal
            // only mutants reach).
            Expr::Index(ix) => {
                self.visit_expr(&ix.expr);
                self.no_constants += 1;
                self.visit_expr(&ix.index);
                self.no_constants -= 1;
                return;
            }
            Expr::Binary(b)
                if matches!(
                    b.op,
                    BinOp::Shl(_)
                        | BinOp::Shr(_)
                        | BinOp::Div(_)
                        | BinOp::Rem(_)
                        | BinOp::ShlAssign(_)
                        | BinOp::ShrAssign(_)
                        | BinOp::DivAssign(_)
                        | BinOp::RemAssign(_)
                ) =>
            {
                if b.attrs.is_empty() {
                    self.binary(b);
                }
                self.visit_expr(&b.left);
                self.no_constants += 1;
                self.visit_expr(&b.right);
                self.no_constants -= 1;
                return;
            }
            Expr::Lit(_) if self.no_constants > 0 => return,
            Expr::Binary(b) if b.attrs.is_empty() => self.binary(b),
            Expr::Unary(u) if u.attrs.is_empty() && !matches!(u.op, UnOp::Deref(_)) => {
                // `-128i8` is only a literal with its sign.
                let literal = matches!(&*u.expr, Expr::Lit(_));
                if !literal {
                    let op = if matches!(u.op, UnOp::Not(_)) {
                        "!"
                    } else {
                        "-"
                    };
                    let span = e.span();
                    self.push(
                        Shape::Unary {
                            op,
                            operand: self.range(u.expr.span()),
                        },
                        self.range(span),
                        span,
                        vec![format!("delete {op}")],
                    );
                }
                if literal {
                    return;
                }
            }
            Expr::Lit(l) if l.attrs.is_empty() => {
                if let syn::Lit::Int(i) = &l.lit {
                    let suffix_ok = matches!(
                        i.suffix(),
                        "" | "u8"
                            | "u16"
                            | "u32"
                            | "u64"
                            | "u128"
                            | "usize"
                            | "i8"
                            | "i16"
                            | "i32"
                            | "i64"
                            | "i128"
                            | "isize"
                    );
                    if let (true, Ok(v)) = (suffix_ok, i.base10_parse::<u128>()) {
                        let span = e.span();
                        self.push(
                            Shape::Constant,
                            self.range(span),
                            span,
                            vec![
                                format!("replace {v} with {}", v.wrapping_add(1)),
                                format!("replace {v} with {}", v.wrapping_sub(1) as i128),
                            ],
                        );
                    }
                }
                return;
            }
            // Constant contexts and what the helpers cannot be called in.
            Expr::Const(_) | Expr::Macro(_) | Expr::Async(_) => return,
            Expr::Repeat(r) => {
                self.visit_expr(&r.expr);
                return;
            }
            // `5.max(x)`: a helper's result would leave the literal's type unknown.
            Expr::MethodCall(m) => {
                if !matches!(&*m.receiver, Expr::Lit(_)) {
                    self.visit_expr(&m.receiver);
                }
                for a in &m.args {
                    self.visit_expr(a);
                }
                return;
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }

    // Not expressions the code computes: patterns, types, generic arguments, attributes and
    // nested items.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
    fn visit_type(&mut self, _: &'ast syn::Type) {}
    fn visit_generic_argument(&mut self, _: &'ast syn::GenericArgument) {}
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Writes the file with its sites rewritten, noting where each site's rewrite went.
struct Splicer<'a> {
    text: &'a str,
    /// Sorted by start, longer first.
    sites: &'a [&'a Site],
    out: String,
    placed: Vec<Placed>,
}

impl Splicer<'_> {
    /// Appends the text of `range` with the sites inside it rewritten; `own` is a site whose
    /// range this is (not rewritten again).
    fn render(&mut self, range: (usize, usize), own: Option<u32>) {
        let mut pos = range.0;
        let sites = self.sites;
        for s in sites {
            if s.range.0 < pos || s.range.1 > range.1 || Some(s.first) == own {
                continue;
            }
            self.out.push_str(&self.text[pos..s.range.0]);
            let start = self.out.len();
            self.site(s);
            self.placed.push(Placed {
                first: s.first,
                start,
                end: self.out.len(),
            });
            pos = s.range.1;
        }
        self.out.push_str(&self.text[pos..range.1]);
    }

    /// The line breaks of the original text between `from` and `to`, which a rewrite leaves
    /// out (an operator on its own line), so that the lines after it do not move.
    fn breaks(&self, from: usize, to: usize) -> String {
        "\n".repeat(self.text[from..to].matches('\n').count())
    }

    fn site(&mut self, s: &Site) {
        let id = s.first;
        let n = s.alternatives.len();
        match &s.shape {
            Shape::Binary { op, assign, l, r } => {
                let (l, r, (op, assign)) = (*l, *r, (*op, *assign));
                let gap = self.breaks(l.1, r.0);
                let tail = self.breaks(r.1, s.range.1);
                let (a, b) = ("__hermetic_l", "__hermetic_r");
                // The operands are rendered in place between the pieces written around them
                // (the sites inside them note where they went).
                match (op, assign) {
                    ("==" | "!=", _) => {
                        self.out.push_str(&format!("{HELPERS}::flip({id}, ("));
                        self.render(l, None);
                        self.out.push_str(&format!(") {op} {gap}("));
                        self.render(r, None);
                        self.out.push_str(&format!("){tail})"));
                    }
                    ("&&" | "||", _) => {
                        let not = if op == "||" { "!" } else { "" };
                        self.out.push_str(&format!("({{ let {a}: bool = "));
                        self.render(l, None);
                        self.out
                            .push_str(&format!("; if {not}({a} ^ {HELPERS}::on1({id})) {{ {gap}"));
                        self.render(r, None);
                        self.out.push_str(&format!(" }} else {{ {a} }}{tail} }})"));
                    }
                    ("<" | ">" | "<=" | ">=", _) => {
                        let helper = match op {
                            "<" => "lt",
                            ">" => "gt",
                            "<=" => "le",
                            _ => "ge",
                        };
                        self.out.push_str("(match (&(");
                        self.render(l, None);
                        self.out.push_str(&format!("), {gap}&("));
                        self.render(r, None);
                        self.out.push_str(&format!(
                                ")) {{ ({a}, {b}) => {HELPERS}::{helper}({id}, *{a} {op} *{b}, {a}, {b}){tail} }})"
                            ),
                        );
                    }
                    (_, false) => {
                        let helper = arith_helper(op);
                        self.out.push_str("(match (");
                        self.render(l, None);
                        self.out.push_str(&format!(", {gap}"));
                        self.render(r, None);
                        self.out.push_str(&format!(
                                ") {{ ({a}, {b}) => {HELPERS}::{helper}({id}, {a}, {b}, {a} {op} {b}){tail} }})"
                            ),
                        );
                    }
                    (_, true) => {
                        // The right side first, as Rust evaluates `x op= y` for numbers (so
                        // `x += x` borrows `x` once).
                        let helper = arith_helper(op);
                        self.out.push_str(&format!("{{ let {b} = "));
                        self.render(r, None);
                        self.out.push_str(&format!("; {gap}let {a} = &mut ("));
                        self.render(l, None);
                        self.out.push_str(&format!(
                                "); *{a} = {HELPERS}::{helper}({id}, *{a}, {b}, *{a} {op} {b}){tail} }}"
                            ),
                        );
                    }
                }
            }
            Shape::Unary { op, operand } => {
                let a = "__hermetic_v";
                let gap = self.breaks(s.range.0, operand.0);
                self.out.push_str(&format!("(match {gap}"));
                self.render(*operand, None);
                self.out.push_str(&format!(
                    " {{ {a} => {HELPERS}::unary({id}, {a}, {op}{a}) }})"
                ));
            }
            Shape::Constant => {
                let lit = &self.text[s.range.0..s.range.1];
                self.out
                    .push_str(&format!("{HELPERS}::constant({id}, {lit})"));
            }
            Shape::Body { values } => {
                let arms: String = values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| {
                        if k + 1 == values.len() {
                            format!("_ => return {v},")
                        } else {
                            format!("{} => return {v},", k + 1)
                        }
                    })
                    .collect();
                self.out.push_str(&format!(
                    "{{ match {HELPERS}::on({id}, {n}) {{ 0 => {{}} {arms} }}"
                ));
                self.render((s.range.0 + 1, s.range.1 - 1), Some(s.first));
                self.out.push('}');
            }
        }
    }
}

fn arith_helper(op: &str) -> &'static str {
    match op {
        "+" => "add",
        "-" => "sub",
        "*" => "mul",
        "/" => "div",
        _ => "rem",
    }
}

/// Items the driver build leaves alone: tests and what only tests compile.
fn skipped(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("test")
            || (a.path().is_ident("cfg") && crate::analyze::syntax::text(&a.meta).contains("test"))
    })
}

/// The names of the type parameters of `generics`.
fn type_params(generics: &syn::Generics) -> Vec<String> {
    generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect()
}

fn has_let(e: &Expr) -> bool {
    match e {
        Expr::Let(_) => true,
        Expr::Binary(b) => has_let(&b.left) || has_let(&b.right),
        Expr::Paren(p) => has_let(&p.expr),
        _ => false,
    }
}

fn type_name(t: &syn::Type) -> String {
    match t {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default(),
        other => squash(&quote::quote!(#other).to_string()),
    }
}

/// Token text without the spaces `quote` puts between tokens.
fn squash(text: &str) -> String {
    text.replace(" < ", "<")
        .replace(" <", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" ,", ",")
        .replace("& ", "&")
        .replace(" :: ", "::")
}

/// What the values of a replaced body are typed by: the function's declared return type, read
/// with the names in scope where it is declared.
struct Types<'a> {
    cluster: &'a Cluster,
    /// The crate's type aliases without parameters, by name.
    aliases: &'a BTreeMap<String, syn::Type>,
    /// Type parameters in scope (the `impl`'s and the function's): no value stands in for one.
    params: Vec<String>,
    /// The `impl`'s type, for `Self`.
    self_ty: Option<&'a syn::Type>,
}

/// Std types with a `Default` value a body can return.
const STD_DEFAULTS: &[&str] = &[
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "BinaryHeap",
    "Cow",
    "PathBuf",
    "OsString",
    "Duration",
    "Cell",
    "RefCell",
    "Mutex",
    "RwLock",
    "Wrapping",
];

impl Types<'_> {
    /// The values a body returning `ret` is replaced by, as cargo-mutants picks them; `None`
    /// when nothing is known to stand in (`impl Trait`, a borrowed value of another type, `!`,
    /// a type parameter, a crate type without `Default`).
    fn replacements(&self, ret: &syn::ReturnType) -> Option<Vec<String>> {
        match ret {
            syn::ReturnType::Default => Some(vec!["()".into()]),
            syn::ReturnType::Type(_, t) => self.values(t, 0),
        }
    }

    fn values(&self, t: &syn::Type, depth: usize) -> Option<Vec<String>> {
        if depth > 8 {
            return None;
        }
        let default = || Some(vec!["Default::default()".to_string()]);
        match t {
            syn::Type::Tuple(t) if t.elems.is_empty() => Some(vec!["()".into()]),
            syn::Type::Tuple(t) => {
                // Every combination of the elements' values, as cargo-mutants does (a few).
                let mut combos = vec![Vec::<String>::new()];
                for e in &t.elems {
                    let vs = self.values(e, depth + 1)?;
                    combos = combos
                        .into_iter()
                        .flat_map(|c| {
                            vs.iter().map(move |v| {
                                let mut c = c.clone();
                                c.push(v.clone());
                                c
                            })
                        })
                        .take(6)
                        .collect();
                }
                Some(
                    combos
                        .into_iter()
                        .map(|c| format!("({},)", c.join(", ")))
                        .collect(),
                )
            }
            syn::Type::Paren(p) => self.values(&p.elem, depth),
            syn::Type::Group(g) => self.values(&g.elem, depth),
            syn::Type::Array(a) => {
                // `[v; N]` needs `v` to be a constant: the primitives' literals are.
                let elem = self.values(&a.elem, depth + 1)?;
                let len = &a.len;
                let literal = elem.iter().all(|v| {
                    v.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '\'')
                        || v == "true"
                        || v == "false"
                });
                literal.then(|| {
                    elem.iter()
                        .map(|v| format!("[{v}; {}]", quote::quote!(#len)))
                        .collect()
                })
            }
            syn::Type::Reference(r) if r.mutability.is_none() => match &*r.elem {
                syn::Type::Path(p) if p.path.is_ident("str") => {
                    Some(vec!["\"\"".into(), "\"xyzzy\"".into()])
                }
                syn::Type::Slice(_) => Some(vec!["&[]".into()]),
                _ => None,
            },
            syn::Type::Path(p) if p.qself.is_none() => {
                let segments = &p.path.segments;
                let last = segments.last()?;
                let name = last.ident.to_string();
                if segments.len() == 1 && self.params.contains(&name) {
                    return None;
                }
                // `Self::Item`, `T::Output`: an associated type says nothing of its values.
                if segments.len() > 1 {
                    let first = segments[0].ident.to_string();
                    if first == "Self" || self.params.contains(&first) {
                        return None;
                    }
                }
                if segments.len() == 1 && name == "Self" {
                    return self.values(self.self_ty?, depth + 1);
                }
                let args: Vec<&syn::Type> = match &last.arguments {
                    syn::PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .filter_map(|a| match a {
                            syn::GenericArgument::Type(t) => Some(t),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                match (name.as_str(), args.as_slice()) {
                    ("bool", []) => Some(vec!["true".into(), "false".into()]),
                    ("u8" | "u16" | "u32" | "u64" | "u128" | "usize", []) => {
                        Some(vec!["0".into(), "1".into()])
                    }
                    ("i8" | "i16" | "i32" | "i64" | "i128" | "isize", []) => {
                        Some(vec!["0".into(), "1".into(), "-1".into()])
                    }
                    ("f32" | "f64", []) => Some(vec!["0.0".into(), "1.0".into(), "-1.0".into()]),
                    ("char", []) => Some(vec!["'\\0'".into(), "'A'".into()]),
                    ("String", []) => Some(vec!["String::new()".into(), "\"xyzzy\".into()".into()]),
                    ("Vec", [_]) => Some(vec!["Vec::new()".into()]),
                    ("Option", [inner]) => {
                        let mut v = vec!["None".to_string()];
                        v.extend(
                            self.values(inner, depth + 1)
                                .unwrap_or_default()
                                .into_iter()
                                .map(|x| format!("Some({x})")),
                        );
                        Some(v)
                    }
                    ("Result", [ok, ..]) => Some(
                        self.values(ok, depth + 1)?
                            .into_iter()
                            .map(|x| format!("Ok({x})"))
                            .collect(),
                    ),
                    ("Box" | "Rc" | "Arc", [inner]) => Some(
                        self.values(inner, depth + 1)?
                            .into_iter()
                            .map(|x| format!("{name}::new({x})"))
                            .collect(),
                    ),
                    _ if STD_DEFAULTS.contains(&name.as_str()) => default(),
                    _ if segments.len() == 1 && self.aliases.contains_key(&name) => {
                        self.values(&self.aliases[&name], depth + 1)
                    }
                    _ => match self.cluster.types.iter().find(|d| d.name == name) {
                        Some(def) if def.implements("Default") => default(),
                        Some(_) => None,
                        // Not known here (another crate's type): the compiler says.
                        None => default(),
                    },
                }
            }
            _ => None,
        }
    }
}

/// The crate's type aliases without parameters (`type Table = HashMap<String, u8>;`), by name;
/// a name defined twice is left out.
fn aliases(files: &[syn::File]) -> BTreeMap<String, syn::Type> {
    fn walk(items: &[syn::Item], out: &mut BTreeMap<String, Option<syn::Type>>) {
        for item in items {
            match item {
                syn::Item::Type(t) if t.generics.params.is_empty() => {
                    let name = t.ident.to_string();
                    let entry = out.entry(name).or_insert_with(|| Some((*t.ty).clone()));
                    if entry.as_ref() != Some(&*t.ty) {
                        *entry = None;
                    }
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        walk(inner, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = BTreeMap::new();
    for f in files {
        walk(&f.items, &mut out);
    }
    out.into_iter()
        .filter_map(|(name, ty)| Some((name, ty?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite_text(src: &str) -> (Vec<String>, String) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        let lib = dir.path().join("src/lib.rs");
        std::fs::write(&lib, src).unwrap();
        let cluster = crate::analyze::analyze(&lib, "demo").unwrap();
        let files = find_sites(&cluster, &Selection::default(), dir.path(), dir.path()).unwrap();
        let (mutants, files) = rewrite(&files, &BTreeSet::new());
        (
            mutants
                .iter()
                .map(|m| format!("{}:{} {} in {}", m.line, m.column, m.change, m.function))
                .collect(),
            files.into_iter().next().map(|f| f.text).unwrap_or_default(),
        )
    }

    #[test]
    fn sites_are_rewritten_in_place_on_the_same_lines() {
        let src = "pub fn small(x: u32) -> bool {\n    x < 10 && !(x == 3)\n}\n";
        let (mutants, text) = rewrite_text(src);
        assert_eq!(
            mutants,
            [
                "1:30 replace small -> bool with true in small",
                "1:30 replace small -> bool with false in small",
                "2:12 replace && with || in small",
                "2:7 replace < with == in small",
                "2:7 replace < with > in small",
                "2:7 replace < with <= in small",
                "2:9 replace 10 with 11 in small",
                "2:9 replace 10 with 9 in small",
                "2:15 delete ! in small",
                "2:19 replace == with != in small",
                "2:22 replace 3 with 4 in small",
                "2:22 replace 3 with 2 in small",
            ]
        );
        assert_eq!(text.lines().count(), src.lines().count(), "{text}");
        assert!(text.contains("::hermetic_driver::mutant::lt(4,"), "{text}");
        syn::parse_file(&text).expect("the rewritten file parses");
    }
}
