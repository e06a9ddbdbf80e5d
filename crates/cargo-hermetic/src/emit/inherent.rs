//! Methods std types have of their own: a crate trait's method of the same name on such a type
//! (which's `impl SysMetadata for Metadata { fn is_file(&self) .. }`) is not what
//! `value.is_file()` calls, so tests call it by the trait's path.

use crate::cluster::{StdTy, Ty};

/// Whether `ty`, a std type, has an inherent method `name` that method-call syntax would pick
/// before a trait's. Lists the methods of the types crates extend most; others count as none.
pub fn std_has_method(ty: &Ty, name: &str) -> bool {
    let names: &[&str] = match ty {
        Ty::Std(StdTy::PathRef | StdTy::PathBuf, _) => &[
            "as_os_str",
            "canonicalize",
            "components",
            "display",
            "ends_with",
            "exists",
            "extension",
            "file_name",
            "file_stem",
            "has_root",
            "is_absolute",
            "is_dir",
            "is_file",
            "is_relative",
            "is_symlink",
            "iter",
            "join",
            "metadata",
            "parent",
            "read_dir",
            "read_link",
            "starts_with",
            "strip_prefix",
            "symlink_metadata",
            "to_path_buf",
            "to_str",
            "to_string_lossy",
            "try_exists",
            "with_extension",
            "with_file_name",
            "push",
            "pop",
            "set_extension",
            "set_file_name",
            "into_os_string",
        ],
        Ty::Std(StdTy::OsStrRef | StdTy::OsString, _) => &[
            "is_empty",
            "len",
            "to_str",
            "to_string_lossy",
            "to_os_string",
            "to_ascii_lowercase",
            "to_ascii_uppercase",
            "into_string",
            "push",
            "as_os_str",
            "as_encoded_bytes",
        ],
        Ty::Str | Ty::String => &[
            "as_bytes",
            "bytes",
            "chars",
            "contains",
            "ends_with",
            "find",
            "is_empty",
            "len",
            "lines",
            "parse",
            "replace",
            "split",
            "starts_with",
            "to_lowercase",
            "to_uppercase",
            "trim",
            "push",
            "push_str",
            "as_str",
            "into_bytes",
        ],
        Ty::Std(StdTy::DirEntry, _) => &["path", "metadata", "file_type", "file_name"],
        Ty::Std(StdTy::Metadata, _) => &[
            "file_type",
            "is_dir",
            "is_file",
            "is_symlink",
            "len",
            "permissions",
            "modified",
            "accessed",
            "created",
        ],
        Ty::Std(StdTy::FileType, _) => &["is_dir", "is_file", "is_symlink"],
        Ty::Std(StdTy::Permissions, _) => &["readonly", "set_readonly"],
        Ty::Std(StdTy::File, _) => &[
            "metadata",
            "set_len",
            "sync_all",
            "sync_data",
            "try_clone",
            "set_permissions",
        ],
        _ => &[],
    };
    names.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_methods_std_types_have_of_their_own() {
        let metadata = Ty::Std(StdTy::Metadata, Vec::new());
        assert!(std_has_method(&metadata, "is_file"));
        assert!(!std_has_method(&metadata, "is_executable"));
        let path = Ty::Std(StdTy::PathRef, Vec::new());
        assert!(std_has_method(&path, "exists"));
        assert!(!std_has_method(&path, "to_slash"));
        assert!(!std_has_method(&Ty::Bool, "then"));
    }
}
