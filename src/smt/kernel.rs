//! What the encoding knows of body-less (kernel) functions by their name:
//! which allocate, which copy from user memory, which may write through the
//! pointers they get.

/// Names of allocation functions: NULL or a fresh object.
pub fn is_allocator(name: &str) -> bool {
    matches!(
        name,
        "malloc"
            | "calloc"
            | "kmalloc"
            | "kzalloc"
            | "kcalloc"
            | "vmalloc"
            | "vzalloc"
            | "__kmalloc"
            | "kmem_cache_alloc"
            | "kmalloc_array"
            | "devm_kzalloc"
            | "devm_kmalloc"
    )
}

/// Whether `name` is `copy_from_user` or one of its `_`-prefixed
/// variants: a copy of bytes the user chooses.
pub fn copies_from_user(name: &str) -> bool {
    name.trim_start_matches('_') == "copy_from_user"
}

/// Whether a body-less function is known to (or may well) write through
/// the pointers it gets: copying, filling, reading input, formatting into a
/// buffer (`sprintf`, `snprintf`, `vsnprintf`; printing to a stream, as
/// `printf` and `printk` do, writes no memory of the module). The names
/// are matched by pattern, less the functions [`writes_no_memory_of_the_module`]
/// lists.
pub fn may_write_through_pointers(name: &str) -> bool {
    const WRITERS: [&str; 19] = [
        "copy", "memset", "memcpy", "memmove", "strcpy", "strncpy", "strlcpy", "strcat", "strncat",
        "strlcat", "read", "get_user", "recv", "scanf", "sprintf", "snprintf", "fill", "load",
        "sg_set",
    ];
    let lower = name.to_ascii_lowercase();
    !writes_no_memory_of_the_module(lower.trim_start_matches('_'))
        && WRITERS.iter().any(|w| lower.contains(w))
}

/// Kernel functions whose names match a writer's pattern but which write
/// no memory of the module through their pointers: `kasprintf` and
/// `kvasprintf` format into a string they allocate; reads of device
/// registers (`ioread32`, `readl`, `i2c_smbus_read_byte_data`) return the
/// value; the reader side of reader-writer locks and sequence locks
/// (`down_read`, `read_lock`, `read_seqbegin`) changes only the lock.
fn writes_no_memory_of_the_module(name: &str) -> bool {
    const EXACT: [&str; 16] = [
        "kasprintf",
        "kvasprintf",
        "readb",
        "readw",
        "readl",
        "readq",
        "raw_readb",
        "raw_readw",
        "raw_readl",
        "raw_readq",
        "i2c_smbus_read_byte",
        "i2c_smbus_read_byte_data",
        "i2c_smbus_read_word_data",
        "down_read",
        "down_read_trylock",
        "up_read",
    ];
    const PREFIXES: [&str; 6] = [
        "ioread",
        "read_lock",
        "read_unlock",
        "raw_read_lock",
        "raw_read_unlock",
        "read_seq",
    ];
    let name = name.strip_suffix("_relaxed").unwrap_or(name);
    EXACT.contains(&name) || PREFIXES.iter().any(|p| name.starts_with(p))
}

#[cfg(test)]
mod tests {
    use super::may_write_through_pointers;

    #[test]
    fn formatting_into_a_buffer_writes_printing_does_not() {
        for w in [
            "sprintf",
            "snprintf",
            "vsnprintf",
            "memcpy",
            "copy_from_user",
            "sscanf",
            "i2c_smbus_read_i2c_block_data",
            "pci_read_config_dword",
            "vfs_read",
        ] {
            assert!(may_write_through_pointers(w), "{w}");
        }
        for r in [
            "printf",
            "printk",
            "dev_err",
            "kfree",
            "mutex_lock",
            "kasprintf",
            "kvasprintf",
            "ioread32",
            "readl_relaxed",
            "__raw_readl",
            "down_read",
            "_raw_read_lock_irqsave",
            "read_seqbegin",
            "i2c_smbus_read_byte_data",
        ] {
            assert!(!may_write_through_pointers(r), "{r}");
        }
    }
}
