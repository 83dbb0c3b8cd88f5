//! C types, interned in a [`TypeTable`] under a [`DataModel`]: LP64 (the
//! default: `long` and pointers are 64 bits) or ILP32 (32 bits, x86's
//! `long long` and `double` aligned to 4 bytes).

use crate::hash::HashMap;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TypeId(pub u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CompositeId(pub u32);

/// The sizes of `long` and of pointers: LP64 (x86-64 Linux, the default) or
/// ILP32 (i386 Linux, as the 32-bit SV-COMP and LDV tasks are prepared).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
pub enum DataModel {
    #[default]
    Lp64,
    Ilp32,
}

impl DataModel {
    /// The kind that has `k`'s representation in this model: under ILP32
    /// `long` is `int` (both 32 bits, signed alike), so the table keeps
    /// one kind per representation.
    pub fn kind(self, k: IntKind) -> IntKind {
        match (self, k) {
            (DataModel::Ilp32, IntKind::Long) => IntKind::Int,
            (DataModel::Ilp32, IntKind::ULong) => IntKind::UInt,
            _ => k,
        }
    }

    /// Bits of a pointer.
    pub fn pointer_bits(self) -> u32 {
        match self {
            DataModel::Lp64 => 64,
            DataModel::Ilp32 => 32,
        }
    }

    /// The largest alignment of a scalar: 16 (`long double`) under LP64,
    /// 4 under ILP32 (i386's System V ABI aligns 8-byte scalars to 4).
    fn max_scalar_align(self) -> u64 {
        match self {
            DataModel::Lp64 => 16,
            DataModel::Ilp32 => 4,
        }
    }

    /// The name witnesses and task definitions use (`LP64`, `ILP32`).
    pub fn name(self) -> &'static str {
        match self {
            DataModel::Lp64 => "LP64",
            DataModel::Ilp32 => "ILP32",
        }
    }

    /// The model [`DataModel::name`] names, if any.
    pub fn from_name(name: &str) -> Option<DataModel> {
        [DataModel::Lp64, DataModel::Ilp32]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum IntKind {
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
    Int128,
    UInt128,
}

/// The integer type specifiers of a C declaration (`unsigned long int` is
/// `{ unsigned: true, longs: 1, .. }`).
#[derive(Clone, Copy, Debug, Default)]
pub struct IntSpecifiers {
    pub bool_: bool,
    pub char_: bool,
    pub short: bool,
    pub longs: u32,
    pub signed: bool,
    pub unsigned: bool,
}

impl IntKind {
    /// The integer type the specifiers name (C11 6.7.2).
    pub fn from_specifiers(s: IntSpecifiers) -> IntKind {
        let pick = |unsigned, signed| if s.unsigned { unsigned } else { signed };
        if s.bool_ {
            IntKind::Bool
        } else if s.char_ {
            if s.unsigned {
                IntKind::UChar
            } else if s.signed {
                IntKind::SChar
            } else {
                IntKind::Char
            }
        } else if s.short {
            pick(IntKind::UShort, IntKind::Short)
        } else if s.longs >= 2 {
            pick(IntKind::ULongLong, IntKind::LongLong)
        } else if s.longs == 1 {
            pick(IntKind::ULong, IntKind::Long)
        } else {
            pick(IntKind::UInt, IntKind::Int)
        }
    }

    /// Bits of the kind under LP64; a [`TypeTable`] under ILP32 never holds
    /// `long` (see [`DataModel::kind`]).
    pub fn bits(self) -> u32 {
        match self {
            IntKind::Bool => 8,
            IntKind::Char | IntKind::SChar | IntKind::UChar => 8,
            IntKind::Short | IntKind::UShort => 16,
            IntKind::Int | IntKind::UInt => 32,
            IntKind::Long | IntKind::ULong | IntKind::LongLong | IntKind::ULongLong => 64,
            IntKind::Int128 | IntKind::UInt128 => 128,
        }
    }

    /// `v` converted to this type (C's modular conversion).
    pub fn wrap(self, v: i128) -> i128 {
        let bits = self.bits();
        if self == IntKind::Bool {
            return (v != 0) as i128;
        }
        if bits >= 128 {
            return v;
        }
        let m = 1i128 << bits;
        let u = v.rem_euclid(m);
        if self.signed() && u >= m / 2 {
            u - m
        } else {
            u
        }
    }

    /// `char` is signed on x86-64.
    pub fn signed(self) -> bool {
        matches!(
            self,
            IntKind::Char
                | IntKind::SChar
                | IntKind::Short
                | IntKind::Int
                | IntKind::Long
                | IntKind::LongLong
                | IntKind::Int128
        )
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Type {
    Void,
    Int(IntKind),
    /// `float` (32), `double` (64), `long double` (128).
    Float(u32),
    Pointer(TypeId),
    Array {
        elem: TypeId,
        len: Option<u64>,
    },
    /// A struct or union; see [`Composite`].
    Composite(CompositeId),
    Function {
        ret: TypeId,
        params: Vec<TypeId>,
        variadic: bool,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct Field {
    pub name: Option<String>,
    pub ty: TypeId,
    /// Byte offset inside the composite (0 for every member of a union).
    pub offset: u64,
    pub bit_width: Option<u32>,
    /// For a bit-field: its first bit inside the storage unit of its type's
    /// size at `offset` (bits are allocated from the least significant).
    pub bit_offset: u32,
}

#[derive(Clone, Debug, Serialize)]
pub struct Composite {
    /// The tag, or a generated name for anonymous composites.
    pub name: String,
    pub is_union: bool,
    pub fields: Vec<Field>,
    /// False while only a forward declaration has been seen.
    pub complete: bool,
    pub size: u64,
    pub align: u64,
}

/// Interned types: equal types have equal ids.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TypeTable {
    types: Vec<Type>,
    #[serde(skip)]
    index: HashMap<Type, TypeId>,
    pub composites: Vec<Composite>,
    model: DataModel,
}

impl TypeTable {
    /// The common type of two already promoted integer types (the integer
    /// part of C's usual arithmetic conversions, C11 6.3.1.8); `a` if either
    /// is not an integer type.
    pub fn common_integer(&self, a: TypeId, b: TypeId) -> TypeId {
        let (Type::Int(ka), Type::Int(kb)) = (self.get(a), self.get(b)) else {
            return a;
        };
        let (ka, kb) = (*ka, *kb);
        if ka == kb {
            a
        } else if ka.signed() == kb.signed() {
            if ka.bits() >= kb.bits() {
                a
            } else {
                b
            }
        } else {
            let (u, s, ku, ks) = if ka.signed() {
                (b, a, kb, ka)
            } else {
                (a, b, ka, kb)
            };
            if ku.bits() >= ks.bits() {
                u
            } else {
                s
            }
        }
    }

    pub fn new() -> Self {
        Self::default()
    }

    /// An empty table under `model`.
    pub fn with_model(model: DataModel) -> Self {
        TypeTable {
            model,
            ..Self::default()
        }
    }

    pub fn model(&self) -> DataModel {
        self.model
    }

    /// Bits of a pointer (and of an address) under the table's model.
    pub fn pointer_bits(&self) -> u32 {
        self.model.pointer_bits()
    }

    /// Interns `ty`; an integer kind is first mapped to its model's
    /// representative ([`DataModel::kind`]).
    pub fn intern(&mut self, ty: Type) -> TypeId {
        let ty = match ty {
            Type::Int(k) => Type::Int(self.model.kind(k)),
            other => other,
        };
        if let Some(&id) = self.index.get(&ty) {
            return id;
        }
        let id = TypeId(self.types.len() as u32);
        self.types.push(ty.clone());
        self.index.insert(ty, id);
        id
    }

    pub fn get(&self, id: TypeId) -> &Type {
        &self.types[id.0 as usize]
    }

    pub fn composite(&self, id: CompositeId) -> &Composite {
        &self.composites[id.0 as usize]
    }

    pub fn add_composite(&mut self, c: Composite) -> CompositeId {
        self.composites.push(c);
        CompositeId(self.composites.len() as u32 - 1)
    }

    pub fn composite_mut(&mut self, id: CompositeId) -> &mut Composite {
        &mut self.composites[id.0 as usize]
    }

    pub fn void(&mut self) -> TypeId {
        self.intern(Type::Void)
    }

    pub fn int(&mut self, k: IntKind) -> TypeId {
        self.intern(Type::Int(k))
    }

    pub fn pointer(&mut self, to: TypeId) -> TypeId {
        self.intern(Type::Pointer(to))
    }

    pub fn is_integer(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Int(_))
    }

    pub fn is_pointer(&self, id: TypeId) -> bool {
        matches!(self.get(id), Type::Pointer(_))
    }

    /// Integer or pointer: representable as a single SMT term.
    pub fn is_scalar(&self, id: TypeId) -> bool {
        matches!(
            self.get(id),
            Type::Int(_) | Type::Pointer(_) | Type::Float(_)
        )
    }

    /// Size in bytes under the table's model; incomplete types and
    /// functions have size 1.
    pub fn size_of(&self, id: TypeId) -> u64 {
        match self.get(id) {
            Type::Void | Type::Function { .. } => 1,
            Type::Int(k) => (k.bits() / 8) as u64,
            // i386's `long double` is 80 bits in 12 bytes.
            Type::Float(128) if self.model == DataModel::Ilp32 => 12,
            Type::Float(bits) => (*bits / 8) as u64,
            Type::Pointer(_) => u64::from(self.pointer_bits() / 8),
            Type::Array { elem, len } => self.size_of(*elem) * len.unwrap_or(0),
            Type::Composite(c) => {
                self.composite(*c)
                    .size
                    .max(if self.composite(*c).complete { 0 } else { 1 })
            }
        }
    }

    pub fn align_of(&self, id: TypeId) -> u64 {
        match self.get(id) {
            Type::Array { elem, .. } => self.align_of(*elem),
            Type::Composite(c) => self.composite(*c).align.max(1),
            _ => self.size_of(id).clamp(1, self.model.max_scalar_align()),
        }
    }

    pub fn len(&self) -> usize {
        self.types.len()
    }

    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }
}
