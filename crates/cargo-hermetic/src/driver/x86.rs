//! Just enough x86-64 decoding to follow control flow through machine code: the length of an
//! instruction and where it can go next. Covers the general-purpose, x87 and SSE encodings that
//! rustc emits for x86-64 without extra target features; anything else (VEX/EVEX, 3DNow!, bytes
//! invalid in 64-bit mode) is `None`, and callers stop there rather than guess.

/// Where control goes after an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// To the next instruction (including calls, which return there).
    Next,
    /// Only to the target (`jmp rel`).
    Jump(u64),
    /// To the target or the next instruction (`jcc rel`).
    Branch(u64),
    /// Nowhere we can follow: `ret`, `ud2`, `int3`, an indirect jump.
    Stop,
}

/// One decoded instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub len: usize,
    pub flow: Flow,
}

/// Immediate sizes: none, one byte, two bytes, four bytes (two with a 0x66 prefix).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Imm {
    None,
    B1,
    B2,
    Z,
}

/// Decodes the instruction at the start of `code`, which sits at address `at`.
pub fn decode(code: &[u8], at: u64) -> Option<Insn> {
    let mut i = 0;
    let mut opsize16 = false;
    let mut rex_w = false;
    // Legacy prefixes, then at most one REX right before the opcode.
    loop {
        match *code.get(i)? {
            0x66 => opsize16 = true,
            0x26 | 0x2E | 0x36 | 0x3E | 0x64 | 0x65 | 0x67 | 0xF0 | 0xF2 | 0xF3 => {}
            _ => break,
        }
        i += 1;
        if i > 14 {
            return None;
        }
    }
    if (0x40..=0x4F).contains(code.get(i)?) {
        rex_w = code[i] & 0x08 != 0;
        i += 1;
    }
    let op = *code.get(i)?;
    i += 1;
    let (modrm, imm, flow_kind) = if op == 0x0F {
        let op2 = *code.get(i)?;
        i += 1;
        match op2 {
            0x38 => {
                i += 1;
                (true, Imm::None, Kind::Plain)
            }
            0x3A => {
                i += 1;
                (true, Imm::B1, Kind::Plain)
            }
            0x80..=0x8F => (false, Imm::Z, Kind::Jcc32),
            0x0B => (false, Imm::None, Kind::Stop),
            0x05..=0x09 | 0x0E | 0x30..=0x37 | 0x77 | 0xA0..=0xA2 | 0xA8 | 0xA9 | 0xC8..=0xCF => {
                (false, Imm::None, Kind::Plain)
            }
            0x70..=0x73 | 0xA4 | 0xAC | 0xBA | 0xC2 | 0xC4..=0xC6 => (true, Imm::B1, Kind::Plain),
            0x04 | 0x0A | 0x0C | 0x0F | 0x24..=0x27 | 0x36..=0x3F | 0x7A | 0x7B | 0xA6 | 0xA7 => {
                return None
            }
            _ => (true, Imm::None, Kind::Plain),
        }
    } else {
        match op {
            0x06 | 0x07 | 0x0E | 0x16 | 0x17 | 0x1E | 0x1F | 0x27 | 0x2F | 0x37 | 0x3F => {
                return None
            }
            0x60..=0x62 | 0x82 | 0x9A | 0xC4 | 0xC5 | 0xCE | 0xD4..=0xD6 | 0xEA => return None,
            0x00..=0x3F if op & 7 < 4 => (true, Imm::None, Kind::Plain),
            0x00..=0x3F if op & 7 == 4 => (false, Imm::B1, Kind::Plain),
            0x00..=0x3F => (false, Imm::Z, Kind::Plain),
            0x50..=0x5F | 0x6C..=0x6F | 0x90..=0x9F | 0xA4..=0xA7 | 0xAA..=0xAF => {
                (false, Imm::None, Kind::Plain)
            }
            0x63 | 0x84..=0x8F | 0xD0..=0xD3 | 0xD8..=0xDF | 0xFE => (true, Imm::None, Kind::Plain),
            0x68 | 0xA9 => (false, Imm::Z, Kind::Plain),
            0x69 | 0x81 | 0xC7 => (true, Imm::Z, Kind::Plain),
            0x6A | 0xA8 | 0xB0..=0xB7 | 0xCD | 0xE0..=0xE7 => (false, Imm::B1, Kind::Plain),
            0x6B | 0x80 | 0x83 | 0xC0 | 0xC1 | 0xC6 => (true, Imm::B1, Kind::Plain),
            0x70..=0x7F => (false, Imm::B1, Kind::Jcc8),
            0xA0..=0xA3 => {
                // moffs: a full 64-bit address.
                return Some(Insn {
                    len: i + 8,
                    flow: Flow::Next,
                })
                .filter(|insn| insn.len <= code.len());
            }
            0xB8..=0xBF if rex_w => {
                return Some(Insn {
                    len: i + 8,
                    flow: Flow::Next,
                })
                .filter(|insn| insn.len <= code.len());
            }
            0xB8..=0xBF => (false, Imm::Z, Kind::Plain),
            0xC2 | 0xCA => (false, Imm::B2, Kind::Stop),
            0xC3 | 0xCB | 0xCC | 0xCF | 0xF4 => (false, Imm::None, Kind::Stop),
            0xC8 => {
                return Some(Insn {
                    len: i + 3,
                    flow: Flow::Next,
                })
                .filter(|insn| insn.len <= code.len());
            }
            0xC9 | 0xD7 | 0xEC..=0xEF | 0xF1 | 0xF5 | 0xF8..=0xFD => {
                (false, Imm::None, Kind::Plain)
            }
            0xE8 => (false, Imm::Z, Kind::Plain),
            0xE9 => (false, Imm::Z, Kind::Jmp32),
            0xEB => (false, Imm::B1, Kind::Jmp8),
            0xF6 | 0xF7 => {
                // `test r/m, imm` (reg 0 or 1) has an immediate; the others do not.
                let reg = (code.get(i)? >> 3) & 7;
                let imm = match (reg < 2, op) {
                    (false, _) => Imm::None,
                    (true, 0xF6) => Imm::B1,
                    (true, _) => Imm::Z,
                };
                (true, imm, Kind::Plain)
            }
            0xFF => {
                let reg = (code.get(i)? >> 3) & 7;
                let kind = if reg == 4 || reg == 5 {
                    Kind::Stop
                } else {
                    Kind::Plain
                };
                (true, Imm::None, kind)
            }
            _ => return None,
        }
    };
    if modrm {
        let m = *code.get(i)?;
        i += 1;
        let (md, rm) = (m >> 6, m & 7);
        if md != 3 {
            if rm == 4 {
                let sib = *code.get(i)?;
                i += 1;
                if md == 0 && sib & 7 == 5 {
                    i += 4;
                }
            } else if md == 0 && rm == 5 {
                i += 4;
            }
            i += match md {
                1 => 1,
                2 => 4,
                _ => 0,
            };
        }
    }
    // Relative jumps and calls keep a 4-byte displacement whatever the operand size.
    let imm_len = match imm {
        Imm::None => 0,
        Imm::B1 => 1,
        Imm::B2 => 2,
        Imm::Z if opsize16 && !matches!(flow_kind, Kind::Jcc32 | Kind::Jmp32) && op != 0xE8 => 2,
        Imm::Z => 4,
    };
    let len = i + imm_len;
    if len > code.len() {
        return None;
    }
    let next = at.wrapping_add(len as u64);
    let rel = || -> u64 {
        match imm_len {
            1 => code[len - 1] as i8 as i64 as u64,
            _ => i32::from_le_bytes(code[len - 4..len].try_into().expect("4 bytes")) as i64 as u64,
        }
    };
    let flow = match flow_kind {
        Kind::Plain => Flow::Next,
        Kind::Stop => Flow::Stop,
        Kind::Jmp8 | Kind::Jmp32 => Flow::Jump(next.wrapping_add(rel())),
        Kind::Jcc8 | Kind::Jcc32 => Flow::Branch(next.wrapping_add(rel())),
    };
    Some(Insn { len, flow })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Stop,
    Jmp8,
    Jmp32,
    Jcc8,
    Jcc32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn len(bytes: &[u8]) -> usize {
        decode(bytes, 0).expect("decodes").len
    }

    #[test]
    fn lengths_of_what_debug_builds_emit() {
        // mov 0x2537ca(%rip),%cl
        assert_eq!(len(&[0x8A, 0x0D, 0xCA, 0x37, 0x25, 0x00]), 6);
        // mov %rax,0x110(%rsp)
        assert_eq!(len(&[0x48, 0x89, 0x84, 0x24, 0x10, 0x01, 0x00, 0x00]), 8);
        // lea 0x110(%rsp),%rdi
        assert_eq!(len(&[0x48, 0x8D, 0xBC, 0x24, 0x10, 0x01, 0x00, 0x00]), 8);
        // mov %dl,0xbf(%rsp)
        assert_eq!(len(&[0x88, 0x94, 0x24, 0xBF, 0x00, 0x00, 0x00]), 7);
        // movabs $0x8000000000000000,%rdi
        assert_eq!(len(&[0x48, 0xBF, 0, 0, 0, 0, 0, 0, 0, 0x80]), 10);
        // add $0x1,%al ; inc %al ; and $0x1,%al
        assert_eq!(len(&[0x04, 0x01]), 2);
        assert_eq!(len(&[0xFE, 0xC0]), 2);
        assert_eq!(len(&[0x24, 0x01]), 2);
        // movb $0x0,0xd7(%rsp)
        assert_eq!(len(&[0xC6, 0x84, 0x24, 0xD7, 0, 0, 0, 0x00]), 8);
        // test $0x1,%rax (48 a9 imm32)
        assert_eq!(len(&[0x48, 0xA9, 1, 0, 0, 0]), 6);
        // cmove %rcx,%rax
        assert_eq!(len(&[0x48, 0x0F, 0x44, 0xC1]), 4);
        // movups 0x148(%rsp),%xmm0
        assert_eq!(len(&[0x0F, 0x10, 0x84, 0x24, 0x48, 0x01, 0, 0]), 8);
        // movq $0x4,0x170(%rsp)
        assert_eq!(
            len(&[0x48, 0xC7, 0x84, 0x24, 0x70, 0x01, 0, 0, 4, 0, 0, 0]),
            12
        );
        // testb $0x1,0x1af(%rsp)
        assert_eq!(len(&[0xF6, 0x84, 0x24, 0xAF, 0x01, 0, 0, 0x01]), 8);
        // mov %edx,%eax ; nopw 0x0(%rax,%rax,1)
        assert_eq!(len(&[0x89, 0xD0]), 2);
        assert_eq!(len(&[0x66, 0x0F, 0x1F, 0x44, 0x00, 0x00]), 6);
        // endbr64
        assert_eq!(len(&[0xF3, 0x0F, 0x1E, 0xFA]), 4);
    }

    #[test]
    fn control_flow() {
        // call *0x2468c8(%rip): returns to the next instruction.
        assert_eq!(
            decode(&[0xFF, 0x15, 0xC8, 0x68, 0x24, 0x00], 0x100),
            Some(Insn {
                len: 6,
                flow: Flow::Next
            })
        );
        // call *%rax
        assert_eq!(decode(&[0xFF, 0xD0], 0).unwrap().flow, Flow::Next);
        // jmp *%rax: cannot follow.
        assert_eq!(decode(&[0xFF, 0xE0], 0).unwrap().flow, Flow::Stop);
        // jmp rel8 backwards, jmp rel32, jne rel8, jne rel32.
        assert_eq!(decode(&[0xEB, 0xFE], 0x10).unwrap().flow, Flow::Jump(0x10));
        assert_eq!(
            decode(&[0xE9, 0x10, 0, 0, 0], 0x10).unwrap().flow,
            Flow::Jump(0x25)
        );
        assert_eq!(
            decode(&[0x75, 0x05], 0x10).unwrap().flow,
            Flow::Branch(0x17)
        );
        assert_eq!(
            decode(&[0x0F, 0x85, 0x00, 0x01, 0, 0], 0x10).unwrap().flow,
            Flow::Branch(0x116)
        );
        // ud2, int3, ret
        assert_eq!(decode(&[0x0F, 0x0B], 0).unwrap().flow, Flow::Stop);
        assert_eq!(decode(&[0xCC], 0).unwrap().flow, Flow::Stop);
        assert_eq!(decode(&[0xC3], 0).unwrap().flow, Flow::Stop);
    }

    #[test]
    fn refuses_what_it_does_not_know() {
        assert_eq!(decode(&[0xC5, 0xF8, 0x77], 0), None); // VEX
        assert_eq!(decode(&[0x06], 0), None);
        assert_eq!(decode(&[0x48, 0x8B], 0), None); // cut short
    }
}
