//! Unwinding cleanup blocks: the landing pads the exception tables name, and the blocks only
//! they lead to. Such blocks run only while a panic unwinds through a frame, so they are
//! counted with the compiler's checks, not with the source's branches.
//!
//! Landing pads come from `.eh_frame` (gimli) and each function's LSDA call-site table. From
//! each pad, control is followed instruction by instruction (`x86.rs`): jumps, both ways of
//! conditional jumps, returns from calls; what cannot be decoded or followed (`ret`, `ud2`, an
//! indirect jump) stops the walk (under-counting cleanup is safer than over-counting it). MIR
//! never jumps from normal code into cleanup code, so everything reached this way is cleanup.

use super::x86::Flow;
use gimli::{BaseAddresses, CieOrFde, EhFrame, LittleEndian, Pointer, UnwindSection};
use object::{Object, ObjectSection};
use std::collections::{BTreeSet, VecDeque};

/// Addresses of the landing pads of every function in the executable.
pub fn landing_pads(file: &object::File) -> BTreeSet<u64> {
    let mut pads = BTreeSet::new();
    let (Some(eh), Some(table)) = (
        file.section_by_name(".eh_frame"),
        file.section_by_name(".gcc_except_table"),
    ) else {
        return pads;
    };
    let (Ok(eh_data), Ok(table_data)) = (eh.data(), table.data()) else {
        return pads;
    };
    let eh_frame = EhFrame::new(eh_data, LittleEndian);
    let mut bases = BaseAddresses::default().set_eh_frame(eh.address());
    if let Some(text) = file.section_by_name(".text") {
        bases = bases.set_text(text.address());
    }
    let mut entries = eh_frame.entries(&bases);
    while let Ok(Some(entry)) = entries.next() {
        let CieOrFde::Fde(partial) = entry else {
            continue;
        };
        let Ok(fde) =
            partial.parse(|section, bases, offset| section.cie_from_offset(bases, offset))
        else {
            continue;
        };
        let Some(Pointer::Direct(lsda)) = fde.lsda() else {
            continue;
        };
        let Some(offset) = lsda.checked_sub(table.address()) else {
            continue;
        };
        if let Some(table_bytes) = table_data.get(offset as usize..) {
            read_lsda(table_bytes, fde.initial_address(), &mut pads);
        }
    }
    pads
}

/// Reads an LSDA's call-site table; each non-zero landing pad is relative to `func`.
fn read_lsda(data: &[u8], func: u64, pads: &mut BTreeSet<u64>) -> Option<()> {
    let mut r = Reader { data, at: 0 };
    let lpstart_enc = r.u8()?;
    let lpstart = if lpstart_enc == 0xff {
        func
    } else {
        r.encoded(lpstart_enc)?
    };
    let ttype_enc = r.u8()?;
    if ttype_enc != 0xff {
        r.uleb()?;
    }
    let site_enc = r.u8()?;
    let len = r.uleb()? as usize;
    let end = r.at + len;
    while r.at < end {
        let _start = r.encoded(site_enc)?;
        let _len = r.encoded(site_enc)?;
        let pad = r.encoded(site_enc)?;
        let _action = r.uleb()?;
        if pad != 0 {
            pads.insert(lpstart.wrapping_add(pad));
        }
    }
    Some(())
}

struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn u8(&mut self) -> Option<u8> {
        let b = *self.data.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    fn uleb(&mut self) -> Option<u64> {
        let mut out = 0u64;
        let mut shift = 0;
        loop {
            let b = self.u8()?;
            out |= u64::from(b & 0x7f) << shift.min(63);
            shift += 7;
            if b & 0x80 == 0 {
                return Some(out);
            }
        }
    }

    fn fixed<const N: usize>(&mut self) -> Option<[u8; N]> {
        let bytes = self.data.get(self.at..self.at + N)?.try_into().ok()?;
        self.at += N;
        Some(bytes)
    }

    /// The value formats call-site tables use (DW_EH_PE_*, without the pc-relative bits).
    fn encoded(&mut self, enc: u8) -> Option<u64> {
        match enc & 0x0f {
            0x01 => self.uleb(),
            0x02 => self.fixed::<2>().map(|b| u16::from_le_bytes(b) as u64),
            0x03 => self.fixed::<4>().map(|b| u32::from_le_bytes(b) as u64),
            0x04 => self.fixed::<8>().map(u64::from_le_bytes),
            0x0b => self
                .fixed::<4>()
                .map(|b| i32::from_le_bytes(b) as i64 as u64),
            _ => None,
        }
    }
}

/// The counters (by index into `pcs`) whose blocks are cleanup: landing pads and the blocks
/// control reaches from them. `text`/`text_addr` is the code, `pcs` the counters' addresses.
/// A landing pad itself often has no address in the counter table (LLVM cannot take the
/// address of an exception pad), so the walk goes by instructions: from each pad it decodes
/// forward, follows jumps, both ways of conditional jumps and returns from calls, and stops at
/// whatever it cannot follow; every counter whose block starts at an instruction it passed is
/// cleanup. (Debug builds lay a block's code out far from its counter's neighbours, so the
/// bytes up to the next counter's address say nothing about where a block ends.)
pub fn cleanup_counters(
    pads: &BTreeSet<u64>,
    pcs: &[u64],
    text: &[u8],
    text_addr: u64,
) -> BTreeSet<usize> {
    let mut by_pc: std::collections::BTreeMap<u64, Vec<usize>> = Default::default();
    for (i, &pc) in pcs.iter().enumerate() {
        by_pc.entry(pc).or_default().push(i);
    }
    let mut cleanup = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<u64> = pads.iter().copied().collect();
    while let Some(mut at) = queue.pop_front() {
        while seen.insert(at) {
            if let Some(counters) = by_pc.get(&at) {
                cleanup.extend(counters.iter().copied());
            }
            let Some(code) = at
                .checked_sub(text_addr)
                .and_then(|off| text.get(off as usize..))
            else {
                break;
            };
            let Some(insn) = super::x86::decode(code, at) else {
                break;
            };
            let next = at.wrapping_add(insn.len as u64);
            match insn.flow {
                Flow::Next => at = next,
                Flow::Jump(target) => at = target,
                Flow::Branch(target) => {
                    queue.push_back(target);
                    at = next;
                }
                Flow::Stop => break,
            }
        }
    }
    cleanup
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_call_site_tables_with_uleb_entries() {
        // lpstart omitted, no type table, uleb128 call sites: two sites, one with a pad at +0x40.
        let lsda = [
            0xff, 0xff, 0x01, 0x08, 0x00, 0x10, 0x00, 0x00, 0x10, 0x08, 0x40, 0x00,
        ];
        let mut pads = BTreeSet::new();
        read_lsda(&lsda, 0x1000, &mut pads).unwrap();
        assert_eq!(pads.into_iter().collect::<Vec<_>>(), vec![0x1040]);
    }

    #[test]
    fn follows_jumps_and_fallthrough_from_pads() {
        // Blocks at 0x10 (pad, jmp rel8 to 0x30), 0x20 (normal), 0x30 (ends in a call, falls
        // through), 0x40 (ud2).
        let mut text = vec![0x90u8; 0x50];
        text[0x1e] = 0xEB;
        text[0x1f] = 0x10; // 0x20 + 0x10 = 0x30
        text[0x3b] = 0xE8;
        text[0x4e] = 0x0F;
        text[0x4f] = 0x0B;
        let pcs = [0x10, 0x20, 0x30, 0x40];
        let pads = BTreeSet::from([0x10]);
        let got = cleanup_counters(&pads, &pcs, &text, 0);
        assert_eq!(got.into_iter().collect::<Vec<_>>(), vec![0, 2, 3]);
    }

    #[test]
    fn a_pad_without_counter_leads_where_its_jump_goes_not_past_the_next_counter() {
        // 0x10 (counter 0): cleanup, jumps to 0x40. 0x20: the pad, no counter: mov %rax,%rcx;
        // jmp 0x10. 0x25..0x30: a normal block without counter that ends in `jmp 0x30`.
        // 0x30 (counter 1): normal code. 0x40 (counter 2): cleanup, calls and resumes.
        let mut text = vec![0x90u8; 0x50];
        text[0x1e..0x20].copy_from_slice(&[0xEB, 0x20]); // 0x20 + 0x20 = 0x40
        text[0x20..0x25].copy_from_slice(&[0x48, 0x89, 0xC1, 0xEB, 0xEB]); // 0x25 - 0x15 = 0x10
        text[0x2e..0x30].copy_from_slice(&[0xEB, 0x00]);
        text[0x30..0x32].copy_from_slice(&[0x0F, 0x0B]);
        text[0x40..0x46].copy_from_slice(&[0xE8, 0, 0, 0, 0, 0xCC]);
        let pcs = [0x10, 0x30, 0x40];
        let got = cleanup_counters(&BTreeSet::from([0x20]), &pcs, &text, 0);
        assert_eq!(got.into_iter().collect::<Vec<_>>(), vec![0, 2]);
    }
}
