//! Unwinding cleanup blocks: the landing pads the exception tables name, and the blocks only
//! they lead to. Such blocks run only while a panic unwinds through a frame, so they are
//! counted with the compiler's checks, not with the source's branches.
//!
//! Landing pads come from `.eh_frame` (gimli) and each function's LSDA call-site table; from
//! each pad, control is followed instruction by instruction (see [`cleanup_counters`]). MIR
//! never jumps from normal code into cleanup code, so everything reached this way is cleanup.

use gimli::{BaseAddresses, CieOrFde, EhFrame, LittleEndian, Pointer, UnwindSection};
use iced_x86::{Decoder, DecoderOptions, FlowControl};
use object::{Object, ObjectSection};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// The landing pads of every function in the executable, and where they are unknown.
#[derive(Debug, Default)]
pub struct LandingPads {
    pub pads: BTreeSet<u64>,
    /// Functions (by start address) whose call-site table could not be read.
    unread: BTreeSet<u64>,
    /// Whether every frame description entry could be read (else any function may have pads
    /// we do not know of).
    complete: bool,
}

impl LandingPads {
    /// Whether all the landing pads of the function at `start` are known.
    pub fn readable(&self, start: u64) -> bool {
        self.complete && !self.unread.contains(&start)
    }
}

/// Addresses of the landing pads of every function in the executable.
pub fn landing_pads(file: &object::File) -> LandingPads {
    let mut found = LandingPads::default();
    let Some(eh) = file.section_by_name(".eh_frame") else {
        // Nothing unwinds, so no landing pad ever runs.
        found.complete = true;
        return found;
    };
    let table = file.section_by_name(".gcc_except_table");
    let table_data = table.as_ref().and_then(|t| t.data().ok());
    let Ok(eh_data) = eh.data() else {
        return found;
    };
    let eh_frame = EhFrame::new(eh_data, LittleEndian);
    let mut bases = BaseAddresses::default().set_eh_frame(eh.address());
    if let Some(text) = file.section_by_name(".text") {
        bases = bases.set_text(text.address());
    }
    let mut entries = eh_frame.entries(&bases);
    loop {
        let entry = match entries.next() {
            Ok(Some(entry)) => entry,
            Ok(None) => break,
            Err(_) => return found,
        };
        let CieOrFde::Fde(partial) = entry else {
            continue;
        };
        let Ok(fde) =
            partial.parse(|section, bases, offset| section.cie_from_offset(bases, offset))
        else {
            return found;
        };
        let Some(lsda) = fde.lsda() else {
            continue;
        };
        let table_bytes = match (lsda, &table, table_data) {
            (Pointer::Direct(lsda), Some(table), Some(data)) => lsda
                .checked_sub(table.address())
                .and_then(|offset| data.get(offset as usize..)),
            _ => None,
        };
        let read =
            table_bytes.and_then(|bytes| read_lsda(bytes, fde.initial_address(), &mut found.pads));
        if read.is_none() {
            found.unread.insert(fde.initial_address());
        }
    }
    found.complete = true;
    found
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
///
/// The walk decodes instructions (iced-x86) from each pad: calls fall through (drops), both
/// ways of a conditional branch are followed (drop flags), an unconditional jump goes to its
/// target, and a return, an indirect jump or a trap (`ud2` after `_Unwind_Resume`) ends the
/// path. Every counter met on the way is cleanup. The driver is built without optimisation,
/// so the code keeps MIR's shape, where normal blocks never jump into cleanup blocks.
pub fn cleanup_counters(
    pads: &BTreeSet<u64>,
    pcs: &[u64],
    text: &[u8],
    text_addr: u64,
) -> BTreeSet<usize> {
    /// Bounds one path, so a mis-read cannot run through the whole executable.
    const MAX_PATH: usize = 512;
    // Several counters can share an address (blocks LLVM could not give one of their own).
    let mut by_pc: BTreeMap<u64, Vec<usize>> = BTreeMap::new();
    for (i, &pc) in pcs.iter().enumerate() {
        by_pc.entry(pc).or_default().push(i);
    }
    let mut cleanup = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut queue: VecDeque<u64> = pads.iter().copied().collect();
    while let Some(start) = queue.pop_front() {
        if !seen.insert(start) {
            continue;
        }
        let Some(code) = start
            .checked_sub(text_addr)
            .and_then(|off| text.get(off as usize..))
        else {
            continue;
        };
        let mut decoder = Decoder::with_ip(64, code, start, DecoderOptions::NONE);
        for _ in 0..MAX_PATH {
            if !decoder.can_decode() {
                break;
            }
            let ins = decoder.decode();
            if ins.is_invalid() {
                break;
            }
            if let Some(counters) = by_pc.get(&ins.ip()) {
                cleanup.extend(counters.iter().copied());
            }
            match ins.flow_control() {
                FlowControl::Next | FlowControl::Call | FlowControl::IndirectCall => {}
                FlowControl::ConditionalBranch => queue.push_back(ins.near_branch_target()),
                FlowControl::UnconditionalBranch => {
                    queue.push_back(ins.near_branch_target());
                    break;
                }
                _ => break,
            }
            // A block reached again by falling through is walked once.
            if ins.next_ip() != start && seen.contains(&ins.next_ip()) {
                break;
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
    fn follows_jumps_calls_and_drop_flags_from_pads() {
        // 0x00: normal code: `ret`.
        // 0x10 (pad, counter 1): `call 0x40; jmp 0x20`.
        // 0x20 (counter 2): `test al, al; jne 0x30; ud2`.
        // 0x30 (counter 3): `ud2`.
        // 0x40 (counter 4, the called drop): `ret` — not cleanup: calls are not followed.
        let mut text = vec![0x90u8; 0x50];
        text[0x00] = 0xC3;
        text[0x10..0x15].copy_from_slice(&[0xE8, 0x2B, 0x00, 0x00, 0x00]); // call 0x40
        text[0x15..0x17].copy_from_slice(&[0xEB, 0x09]); // jmp 0x20
        text[0x20..0x22].copy_from_slice(&[0x84, 0xC0]); // test al, al
        text[0x22..0x24].copy_from_slice(&[0x75, 0x0C]); // jne 0x30
        text[0x24..0x26].copy_from_slice(&[0x0F, 0x0B]); // ud2
        text[0x30..0x32].copy_from_slice(&[0x0F, 0x0B]); // ud2
        text[0x40] = 0xC3;
        let pcs = [0x00, 0x10, 0x20, 0x30, 0x40];
        let pads = BTreeSet::from([0x10]);
        let got = cleanup_counters(&pads, &pcs, &text, 0);
        assert_eq!(got.into_iter().collect::<Vec<_>>(), vec![1, 2, 3]);
    }

    #[test]
    fn a_counter_inside_a_block_without_its_own_start_is_found() {
        // The pad's path runs through a block that has no counter (0x16) before reaching the
        // jump that leads to the counted block at 0x30; the old block-by-counter walk missed it.
        let mut text = vec![0x90u8; 0x40];
        text[0x10..0x12].copy_from_slice(&[0xEB, 0x04]); // jmp 0x16
        text[0x16..0x18].copy_from_slice(&[0xEB, 0x18]); // jmp 0x30
        text[0x30..0x32].copy_from_slice(&[0x0F, 0x0B]); // ud2
        let pcs = [0x10, 0x20, 0x30];
        let got = cleanup_counters(&BTreeSet::from([0x10]), &pcs, &text, 0);
        assert_eq!(got.into_iter().collect::<Vec<_>>(), vec![0, 2]);
    }
}
