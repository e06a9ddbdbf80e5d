//! The virtual file system: an inode tree with POSIX-like path resolution and permissions.
//!
//! Everything here is plain data and returns `Err(errno)` exactly where the Linux kernel would,
//! so the libc layer only translates. The virtual process is an ordinary (non-root) user that
//! owns every node, so permission bits are enforced for the owner: a read-only file cannot be
//! written even when the tests run as root, which keeps tests deterministic across machines.

use std::collections::BTreeMap;

use libc::c_int;

pub(crate) type Errno = c_int;
pub(crate) type R<T> = Result<T, Errno>;

pub(crate) const ROOT: u64 = 1;
const MAX_SYMLINKS: usize = 40;

/// Seconds and nanoseconds since the Unix epoch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Ts {
    pub sec: i64,
    pub nsec: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Device {
    Null,
    Zero,
    Random,
}

#[derive(Debug)]
pub(crate) enum Kind {
    File(Vec<u8>),
    Dir(BTreeMap<Vec<u8>, u64>),
    Symlink(Vec<u8>),
    Dev(Device),
}

#[derive(Debug)]
pub(crate) struct Node {
    pub kind: Kind,
    /// Permission bits only (0o7777); the type comes from `kind`.
    pub perm: u32,
    pub mtime: Ts,
    pub atime: Ts,
    pub ctime: Ts,
    pub nlink: u32,
    /// errno that reads and writes of this file fail with (`Env::file_error`).
    pub fail: Option<Errno>,
}

impl Node {
    pub fn is_dir(&self) -> bool {
        matches!(self.kind, Kind::Dir(_))
    }
    fn allows(&self, want: u32) -> bool {
        (self.perm >> 6) & want == want
    }
    pub fn file_type(&self) -> u32 {
        match self.kind {
            Kind::File(_) => libc::S_IFREG,
            Kind::Dir(_) => libc::S_IFDIR,
            Kind::Symlink(_) => libc::S_IFLNK,
            Kind::Dev(_) => libc::S_IFCHR,
        }
    }
    pub fn size(&self) -> u64 {
        match &self.kind {
            Kind::File(d) => d.len() as u64,
            Kind::Dir(_) => 4096,
            Kind::Symlink(t) => t.len() as u64,
            Kind::Dev(_) => 0,
        }
    }
}

/// What a path names: the directory holding the last component, its name, and the node if it
/// exists. `name` is empty when the path ends in `.`/`..` or is `/` (no entry to create).
#[derive(Debug)]
pub(crate) struct Lookup {
    pub parent: u64,
    pub name: Vec<u8>,
    pub ino: Option<u64>,
    /// Canonical absolute path (symlinks resolved except a final unfollowed one).
    pub canon: Vec<u8>,
}

#[derive(Debug)]
pub(crate) struct Vfs {
    pub nodes: crate::state::HashMap<u64, Node>,
    next_ino: u64,
    /// Time stamped on nodes that change; kept equal to the virtual wall clock by the caller.
    pub now: Ts,
    /// The virtual process's umask (per environment, unlike the real process-wide one).
    pub umask: u32,
}

pub(crate) struct Stat {
    pub ino: u64,
    pub mode: u32,
    pub nlink: u32,
    pub size: u64,
    pub atime: Ts,
    pub mtime: Ts,
    pub ctime: Ts,
    pub rdev: u64,
}

pub(crate) const UID: u32 = 1000;
pub(crate) const GID: u32 = 1000;

/// Splits a path into its components, keeping `.` and `..` (they are resolved while walking).
fn components(path: &[u8]) -> impl DoubleEndedIterator<Item = &[u8]> {
    path.split(|&b| b == b'/').filter(|c| !c.is_empty())
}

/// Lexically normalises `path` against the absolute directory `cwd` (for the access log and
/// for remembering where descriptors point).
pub(crate) fn lexical_abs(cwd: &[u8], path: &[u8]) -> Vec<u8> {
    let mut parts: Vec<&[u8]> = Vec::new();
    let joined;
    let full: &[u8] = if path.starts_with(b"/") {
        path
    } else {
        joined = [cwd, b"/", path].concat();
        &joined
    };
    for c in components(full) {
        match c {
            b"." => {}
            b".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    if parts.is_empty() {
        return b"/".to_vec();
    }
    let mut out = Vec::with_capacity(full.len());
    for p in parts {
        out.push(b'/');
        out.extend_from_slice(p);
    }
    out
}

impl Vfs {
    pub fn new(now: Ts) -> Vfs {
        let mut v = Vfs {
            nodes: Default::default(),
            next_ino: ROOT,
            now,
            umask: 0o022,
        };
        let root = v.alloc(Kind::Dir(BTreeMap::new()), 0o755);
        debug_assert_eq!(root, ROOT);
        // A usable minimal system: the devices programs rely on and a temp directory.
        let dev = v.mkdir_p(b"/dev");
        for (name, d) in [
            (&b"null"[..], Device::Null),
            (b"zero", Device::Zero),
            (b"random", Device::Random),
            (b"urandom", Device::Random),
        ] {
            let ino = v.alloc(Kind::Dev(d), 0o666);
            v.link_into(dev, name, ino);
        }
        let tmp = v.mkdir_p(b"/tmp");
        v.node_mut(tmp).perm = 0o777;
        v
    }

    fn alloc(&mut self, kind: Kind, perm: u32) -> u64 {
        let ino = self.next_ino;
        self.next_ino += 1;
        self.nodes.insert(
            ino,
            Node {
                kind,
                perm,
                mtime: self.now,
                atime: self.now,
                ctime: self.now,
                nlink: 1,
                fail: None,
            },
        );
        ino
    }

    pub fn node(&self, ino: u64) -> &Node {
        &self.nodes[&ino]
    }
    pub fn node_mut(&mut self, ino: u64) -> &mut Node {
        self.nodes.get_mut(&ino).expect("live inode")
    }

    fn entries(&self, dir: u64) -> R<&BTreeMap<Vec<u8>, u64>> {
        match &self.node(dir).kind {
            Kind::Dir(e) => Ok(e),
            _ => Err(libc::ENOTDIR),
        }
    }
    fn entries_mut(&mut self, dir: u64) -> &mut BTreeMap<Vec<u8>, u64> {
        match &mut self.node_mut(dir).kind {
            Kind::Dir(e) => e,
            _ => unreachable!("entries_mut on a non-directory"),
        }
    }

    fn link_into(&mut self, dir: u64, name: &[u8], ino: u64) {
        self.entries_mut(dir).insert(name.to_vec(), ino);
        let now = self.now;
        let d = self.node_mut(dir);
        d.mtime = now;
        d.ctime = now;
    }

    fn touch(&mut self, ino: u64) {
        let now = self.now;
        let n = self.node_mut(ino);
        n.mtime = now;
        n.ctime = now;
    }

    /// Drops one link to `ino`, freeing it when no link is left and no descriptor holds it.
    fn unlink_node(&mut self, ino: u64, open: &dyn Fn(u64) -> bool) {
        let n = self.node_mut(ino);
        n.nlink = n.nlink.saturating_sub(1);
        if n.nlink == 0 && !open(ino) {
            self.nodes.remove(&ino);
        }
    }

    /// Frees an unlinked inode once its last descriptor closed.
    pub fn release(&mut self, ino: u64) {
        if self.nodes.get(&ino).is_some_and(|n| n.nlink == 0) {
            self.nodes.remove(&ino);
        }
    }

    /// Builder-time helper: creates `path` and missing parents as directories.
    pub fn mkdir_p(&mut self, path: &[u8]) -> u64 {
        let mut cur = ROOT;
        for c in components(path) {
            if c == b"." || c == b".." {
                continue;
            }
            cur = match self.entries(cur).ok().and_then(|e| e.get(c).copied()) {
                Some(ino) if self.node(ino).is_dir() => ino,
                Some(ino) => {
                    // A file in the way is replaced: the builder's last word wins.
                    self.entries_mut(cur).remove(c);
                    self.nodes.remove(&ino);
                    let d = self.alloc(Kind::Dir(BTreeMap::new()), 0o755);
                    self.link_into(cur, c, d);
                    d
                }
                None => {
                    let d = self.alloc(Kind::Dir(BTreeMap::new()), 0o755);
                    self.link_into(cur, c, d);
                    d
                }
            };
        }
        cur
    }

    /// Builder-time helper: creates or replaces a regular file, with parents.
    pub fn put_file(&mut self, path: &[u8], data: Vec<u8>, perm: u32) -> u64 {
        let (dir, name) = split_last(path);
        let parent = self.mkdir_p(dir);
        if let Some(old) = self.entries_mut(parent).remove(name) {
            self.nodes.remove(&old);
        }
        let ino = self.alloc(Kind::File(data), perm);
        self.link_into(parent, name, ino);
        ino
    }

    /// Builder-time helper: creates a symlink, with parents.
    pub fn put_symlink(&mut self, path: &[u8], target: &[u8]) {
        let (dir, name) = split_last(path);
        let parent = self.mkdir_p(dir);
        if let Some(old) = self.entries_mut(parent).remove(name) {
            self.nodes.remove(&old);
        }
        let ino = self.alloc(Kind::Symlink(target.to_vec()), 0o777);
        self.link_into(parent, name, ino);
    }

    /// Resolves `path` (relative ones against the absolute directory `cwd`), following
    /// symlinks in every component and in the last one when `follow` is set.
    pub fn resolve(&self, cwd: &[u8], path: &[u8], follow: bool) -> R<Lookup> {
        if path.is_empty() {
            return Err(libc::ENOENT);
        }
        if path.len() > 4095 {
            return Err(libc::ENAMETOOLONG);
        }
        let trailing_slash = path.ends_with(b"/");
        let mut stack: Vec<(u64, Vec<u8>)> = vec![(ROOT, Vec::new())];
        // Pending components, last to process first.
        let mut pending: Vec<Vec<u8>> = components(path).rev().map(|c| c.to_vec()).collect();
        if !path.starts_with(b"/") {
            pending.extend(components(cwd).rev().map(|c| c.to_vec()));
        }
        let mut links = 0;
        while let Some(c) = pending.pop() {
            let is_last = pending.is_empty();
            match &c[..] {
                b"." => {}
                b".." => {
                    if stack.len() > 1 {
                        stack.pop();
                    }
                }
                name => {
                    let cur = stack.last().expect("root stays").0;
                    let entries = self.entries(cur)?;
                    if !self.node(cur).allows(1) {
                        return Err(libc::EACCES);
                    }
                    let Some(&ino) = entries.get(name) else {
                        if is_last {
                            return Ok(Lookup {
                                parent: cur,
                                name: name.to_vec(),
                                ino: None,
                                canon: canon_of(&stack, name),
                            });
                        }
                        return Err(libc::ENOENT);
                    };
                    let node = self.node(ino);
                    if let Kind::Symlink(target) = &node.kind {
                        if !is_last || follow || trailing_slash {
                            links += 1;
                            if links > MAX_SYMLINKS {
                                return Err(libc::ELOOP);
                            }
                            if target.starts_with(b"/") {
                                stack.truncate(1);
                            }
                            pending.extend(components(target).rev().map(|c| c.to_vec()));
                            continue;
                        }
                    }
                    if is_last {
                        if trailing_slash && !node.is_dir() {
                            return Err(libc::ENOTDIR);
                        }
                        return Ok(Lookup {
                            parent: cur,
                            name: name.to_vec(),
                            ino: Some(ino),
                            canon: canon_of(&stack, name),
                        });
                    }
                    if !node.is_dir() {
                        return Err(libc::ENOTDIR);
                    }
                    stack.push((ino, name.to_vec()));
                }
            }
        }
        // The path ended on a directory reached through `.`/`..`/`/`.
        let (dir, _) = stack.last().expect("root stays");
        let parent = if stack.len() > 1 {
            stack[stack.len() - 2].0
        } else {
            ROOT
        };
        Ok(Lookup {
            parent,
            name: Vec::new(),
            ino: Some(*dir),
            canon: canon_of(&stack, b""),
        })
    }

    /// Opens (and maybe creates or truncates) a path; returns the inode and whether it was
    /// created.
    pub fn open(&mut self, cwd: &[u8], path: &[u8], flags: c_int, mode: u32) -> R<(u64, bool)> {
        let acc = flags & libc::O_ACCMODE;
        let want_write = acc == libc::O_WRONLY || acc == libc::O_RDWR;
        let want_read = acc == libc::O_RDONLY || acc == libc::O_RDWR;
        let creat = flags & libc::O_CREAT != 0;
        let excl = flags & libc::O_EXCL != 0;
        let follow = flags & libc::O_NOFOLLOW == 0 && !(creat && excl);
        let l = self.resolve(cwd, path, follow)?;
        let ino = match l.ino {
            Some(ino) => {
                if creat && excl {
                    return Err(libc::EEXIST);
                }
                ino
            }
            None => {
                if !creat {
                    return Err(libc::ENOENT);
                }
                if path.ends_with(b"/") {
                    return Err(libc::EISDIR);
                }
                if !self.node(l.parent).allows(2) {
                    return Err(libc::EACCES);
                }
                let ino = self.alloc(Kind::File(Vec::new()), mode & 0o7777 & !self.umask);
                self.link_into(l.parent, &l.name, ino);
                return Ok((ino, true));
            }
        };
        let node = self.node(ino);
        match node.kind {
            Kind::Symlink(_) => return Err(libc::ELOOP),
            Kind::Dir(_) => {
                if want_write || creat {
                    return Err(libc::EISDIR);
                }
            }
            _ => {
                if flags & libc::O_DIRECTORY != 0 {
                    return Err(libc::ENOTDIR);
                }
            }
        }
        if (want_read && !node.allows(4)) || (want_write && !node.allows(2)) {
            return Err(libc::EACCES);
        }
        if flags & libc::O_TRUNC != 0 && want_write {
            if let Kind::File(d) = &mut self.node_mut(ino).kind {
                d.clear();
                self.touch(ino);
            }
        }
        Ok((ino, false))
    }

    pub fn stat(&self, ino: u64) -> Stat {
        let n = self.node(ino);
        Stat {
            ino,
            mode: n.file_type() | n.perm,
            nlink: if n.is_dir() { 2 } else { n.nlink },
            size: n.size(),
            atime: n.atime,
            mtime: n.mtime,
            ctime: n.ctime,
            rdev: match n.kind {
                Kind::Dev(Device::Null) => libc::makedev(1, 3),
                Kind::Dev(Device::Zero) => libc::makedev(1, 5),
                Kind::Dev(Device::Random) => libc::makedev(1, 9),
                _ => 0,
            },
        }
    }

    pub fn read_at(&self, ino: u64, pos: u64, buf: &mut [u8]) -> usize {
        match &self.node(ino).kind {
            Kind::File(d) => {
                let start = (pos as usize).min(d.len());
                let n = buf.len().min(d.len() - start);
                buf[..n].copy_from_slice(&d[start..start + n]);
                n
            }
            Kind::Dev(Device::Zero) => {
                buf.fill(0);
                buf.len()
            }
            _ => 0,
        }
    }

    pub fn write_at(&mut self, ino: u64, pos: u64, data: &[u8]) -> R<usize> {
        let now = self.now;
        let n = self.node_mut(ino);
        match &mut n.kind {
            Kind::File(d) => {
                let pos = usize::try_from(pos).map_err(|_| libc::EFBIG)?;
                let end = pos.checked_add(data.len()).ok_or(libc::EFBIG)?;
                if pos == d.len() {
                    // The common case, appending: no zero-fill before the copy.
                    d.extend_from_slice(data);
                } else {
                    if d.len() < end {
                        d.resize(end, 0);
                    }
                    d[pos..end].copy_from_slice(data);
                }
                n.mtime = now;
                n.ctime = now;
                Ok(data.len())
            }
            Kind::Dev(_) => Ok(data.len()),
            Kind::Dir(_) => Err(libc::EISDIR),
            Kind::Symlink(_) => Err(libc::EBADF),
        }
    }

    pub fn truncate(&mut self, ino: u64, len: u64) -> R<()> {
        let now = self.now;
        let n = self.node_mut(ino);
        match &mut n.kind {
            Kind::File(d) => {
                d.resize(usize::try_from(len).map_err(|_| libc::EFBIG)?, 0);
                n.mtime = now;
                n.ctime = now;
                Ok(())
            }
            Kind::Dir(_) => Err(libc::EISDIR),
            _ => Err(libc::EINVAL),
        }
    }

    pub fn mkdir(&mut self, cwd: &[u8], path: &[u8], mode: u32) -> R<()> {
        let l = self.resolve(cwd, path, false)?;
        if l.ino.is_some() {
            return Err(libc::EEXIST);
        }
        if !self.node(l.parent).allows(2) {
            return Err(libc::EACCES);
        }
        let d = self.alloc(Kind::Dir(BTreeMap::new()), mode & 0o7777 & !self.umask);
        self.link_into(l.parent, &l.name, d);
        Ok(())
    }

    pub fn rmdir(&mut self, cwd: &[u8], path: &[u8], open: &dyn Fn(u64) -> bool) -> R<()> {
        let l = self.resolve(cwd, path, false)?;
        let ino = l.ino.ok_or(libc::ENOENT)?;
        if l.name.is_empty() {
            return Err(if ino == ROOT {
                libc::EBUSY
            } else {
                libc::EINVAL
            });
        }
        if !self.entries(ino)?.is_empty() {
            return Err(libc::ENOTEMPTY);
        }
        if !self.node(l.parent).allows(2) {
            return Err(libc::EACCES);
        }
        self.entries_mut(l.parent).remove(&l.name);
        self.touch(l.parent);
        self.unlink_node(ino, open);
        Ok(())
    }

    pub fn unlink(&mut self, cwd: &[u8], path: &[u8], open: &dyn Fn(u64) -> bool) -> R<()> {
        let l = self.resolve(cwd, path, false)?;
        let ino = l.ino.ok_or(libc::ENOENT)?;
        if self.node(ino).is_dir() {
            return Err(libc::EISDIR);
        }
        if !self.node(l.parent).allows(2) {
            return Err(libc::EACCES);
        }
        self.entries_mut(l.parent).remove(&l.name);
        self.touch(l.parent);
        self.unlink_node(ino, open);
        Ok(())
    }

    pub fn rename(
        &mut self,
        cwd_old: &[u8],
        old: &[u8],
        cwd_new: &[u8],
        new: &[u8],
        noreplace: bool,
        open: &dyn Fn(u64) -> bool,
    ) -> R<()> {
        let src = self.resolve(cwd_old, old, false)?;
        let ino = src.ino.ok_or(libc::ENOENT)?;
        let dst = self.resolve(cwd_new, new, false)?;
        if src.name.is_empty() || dst.name.is_empty() {
            return Err(libc::EBUSY);
        }
        if !self.node(src.parent).allows(2) || !self.node(dst.parent).allows(2) {
            return Err(libc::EACCES);
        }
        if dst.ino == Some(ino) {
            return Ok(());
        }
        let src_dir = self.node(ino).is_dir();
        if src_dir {
            // A directory cannot move below itself.
            let mut canon = src.canon.clone();
            canon.push(b'/');
            if dst.canon.starts_with(&canon) {
                return Err(libc::EINVAL);
            }
        }
        if let Some(victim) = dst.ino {
            if noreplace {
                return Err(libc::EEXIST);
            }
            let victim_dir = self.node(victim).is_dir();
            match (src_dir, victim_dir) {
                (true, false) => return Err(libc::ENOTDIR),
                (false, true) => return Err(libc::EISDIR),
                (true, true) if !self.entries(victim)?.is_empty() => return Err(libc::ENOTEMPTY),
                _ => {}
            }
            self.entries_mut(dst.parent).remove(&dst.name);
            self.unlink_node(victim, open);
        }
        self.entries_mut(src.parent).remove(&src.name);
        self.link_into(dst.parent, &dst.name, ino);
        self.touch(src.parent);
        self.node_mut(ino).ctime = self.now;
        Ok(())
    }

    pub fn link(&mut self, cwd: &[u8], old: &[u8], new: &[u8], follow: bool) -> R<()> {
        let src = self.resolve(cwd, old, follow)?;
        let ino = src.ino.ok_or(libc::ENOENT)?;
        if self.node(ino).is_dir() {
            return Err(libc::EPERM);
        }
        let dst = self.resolve(cwd, new, false)?;
        if dst.ino.is_some() {
            return Err(libc::EEXIST);
        }
        if !self.node(dst.parent).allows(2) {
            return Err(libc::EACCES);
        }
        self.node_mut(ino).nlink += 1;
        self.link_into(dst.parent, &dst.name, ino);
        Ok(())
    }

    pub fn symlink(&mut self, cwd: &[u8], target: &[u8], path: &[u8]) -> R<()> {
        let l = self.resolve(cwd, path, false)?;
        if l.ino.is_some() {
            return Err(libc::EEXIST);
        }
        if !self.node(l.parent).allows(2) {
            return Err(libc::EACCES);
        }
        let ino = self.alloc(Kind::Symlink(target.to_vec()), 0o777);
        self.link_into(l.parent, &l.name, ino);
        Ok(())
    }

    pub fn readlink(&self, cwd: &[u8], path: &[u8]) -> R<Vec<u8>> {
        let l = self.resolve(cwd, path, false)?;
        match &self.node(l.ino.ok_or(libc::ENOENT)?).kind {
            Kind::Symlink(t) => Ok(t.clone()),
            _ => Err(libc::EINVAL),
        }
    }

    pub fn chmod(&mut self, ino: u64, mode: u32) {
        let now = self.now;
        let n = self.node_mut(ino);
        n.perm = mode & 0o7777;
        n.ctime = now;
    }

    /// The entries of a directory in byte order, `.` and `..` first, as readdir returns them.
    pub fn list(&self, ino: u64, parent: u64) -> R<Vec<(Vec<u8>, u64, u8)>> {
        let node = self.node(ino);
        let entries = self.entries(ino)?;
        if !node.allows(4) {
            return Err(libc::EACCES);
        }
        let mut out = vec![
            (b".".to_vec(), ino, libc::DT_DIR),
            (b"..".to_vec(), parent, libc::DT_DIR),
        ];
        for (name, &child) in entries {
            let t = match self.node(child).kind {
                Kind::File(_) => libc::DT_REG,
                Kind::Dir(_) => libc::DT_DIR,
                Kind::Symlink(_) => libc::DT_LNK,
                Kind::Dev(_) => libc::DT_CHR,
            };
            out.push((name.clone(), child, t));
        }
        Ok(out)
    }

    /// All regular files with their absolute paths, in path order (for inspection).
    pub fn walk_files(&self) -> Vec<(Vec<u8>, u64)> {
        let mut out = Vec::new();
        let mut todo = vec![(b"".to_vec(), ROOT)];
        while let Some((path, ino)) = todo.pop() {
            if let Ok(entries) = self.entries(ino) {
                for (name, &child) in entries.iter().rev() {
                    let p = [&path[..], b"/", name].concat();
                    match self.node(child).kind {
                        Kind::Dir(_) => todo.push((p, child)),
                        Kind::File(_) => out.push((p, child)),
                        _ => {}
                    }
                }
            }
        }
        out.sort();
        out
    }
}

fn canon_of(stack: &[(u64, Vec<u8>)], last: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for (_, name) in &stack[1..] {
        out.push(b'/');
        out.extend_from_slice(name);
    }
    if !last.is_empty() {
        out.push(b'/');
        out.extend_from_slice(last);
    }
    if out.is_empty() {
        out.push(b'/');
    }
    out
}

fn split_last(path: &[u8]) -> (&[u8], &[u8]) {
    let trimmed = path.strip_suffix(b"/").unwrap_or(path);
    match trimmed.iter().rposition(|&b| b == b'/') {
        Some(i) => (&trimmed[..i], &trimmed[i + 1..]),
        None => (&b""[..], trimmed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vfs() -> Vfs {
        let mut v = Vfs::new(Ts::default());
        v.put_file(b"/a/b/file", b"data".to_vec(), 0o644);
        v.put_symlink(b"/a/link", b"b");
        v.put_symlink(b"/abs", b"/a/b/file");
        v.put_symlink(b"/loop", b"/loop");
        v
    }

    #[test]
    fn resolves_dots_and_symlinks() {
        let v = vfs();
        let l = v.resolve(b"/a", b"link/../b/./file", true).unwrap();
        assert_eq!(l.canon, b"/a/b/file");
        assert!(l.ino.is_some());
        assert_eq!(v.resolve(b"/", b"/abs", true).unwrap().canon, b"/a/b/file");
        assert_eq!(v.resolve(b"/", b"/abs", false).unwrap().canon, b"/abs");
        assert_eq!(v.resolve(b"/", b"/loop", true).unwrap_err(), libc::ELOOP);
        assert_eq!(
            v.resolve(b"/", b"/a/b/file/x", true).unwrap_err(),
            libc::ENOTDIR
        );
        assert_eq!(
            v.resolve(b"/", b"/a/b/file/", true).unwrap_err(),
            libc::ENOTDIR
        );
        assert_eq!(v.resolve(b"/", b"/x/y", true).unwrap_err(), libc::ENOENT);
        assert!(v.resolve(b"/", b"/a/new", true).unwrap().ino.is_none());
        assert_eq!(v.resolve(b"/", b"/..", true).unwrap().canon, b"/");
        assert_eq!(v.resolve(b"/", b"", true).unwrap_err(), libc::ENOENT);
    }

    #[test]
    fn rename_rules() {
        let mut v = vfs();
        let none = |_| false;
        assert_eq!(
            v.rename(b"/", b"/a", b"/", b"/a/b/c", false, &none),
            Err(libc::EINVAL)
        );
        v.mkdir(b"/", b"/d", 0o755).unwrap();
        assert_eq!(
            v.rename(b"/", b"/a/b/file", b"/", b"/d", false, &none),
            Err(libc::EISDIR)
        );
        assert_eq!(
            v.rename(b"/", b"/d", b"/", b"/a/b/file", false, &none),
            Err(libc::ENOTDIR)
        );
        assert_eq!(
            v.rename(b"/", b"/d", b"/", b"/a", false, &none),
            Err(libc::ENOTEMPTY)
        );
        v.rename(b"/", b"/a", b"/", b"/z", false, &none).unwrap();
        assert!(v.resolve(b"/", b"/z/b/file", true).unwrap().ino.is_some());
    }

    #[test]
    fn lexical_paths() {
        assert_eq!(lexical_abs(b"/w", b"x/../y/./z"), b"/w/y/z");
        assert_eq!(lexical_abs(b"/w", b"/../.."), b"/");
        assert_eq!(lexical_abs(b"/", b"."), b"/");
    }

    #[test]
    fn permissions_for_a_non_root_owner() {
        let mut v = vfs();
        v.put_file(b"/ro", b"x".to_vec(), 0o444);
        assert_eq!(v.open(b"/", b"/ro", libc::O_WRONLY, 0), Err(libc::EACCES));
        assert!(v.open(b"/", b"/ro", libc::O_RDONLY, 0).is_ok());
        let d = v.mkdir_p(b"/locked");
        v.node_mut(d).perm = 0o000;
        assert_eq!(
            v.resolve(b"/", b"/locked/x", true).unwrap_err(),
            libc::EACCES
        );
    }
}
