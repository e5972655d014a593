//! The compact key table of one turn (rule `PERF-TURN-MEMORY`): every
//! distinct key of the turn once, as bytes in one shared buffer, with a
//! small value each.
//!
//! A turn's repeated-ID rule (`CHECK-TURN-UNIQUE-ID`) and its attempt rule
//! (`CHECK-ID-ATTEMPT`) need one entry per distinct key for the whole turn,
//! answered or not: that is the floor of a long turn's memory. A map of
//! cloned `String` keys costs a heap block and a 24-byte header per key
//! plus a table of headers; here a key costs its bytes, an 8-byte offset,
//! its value and a 4-byte table slot (plus the table's control byte and
//! slack). Keys are compared in full on every probe, so distinct keys whose
//! hashes collide stay distinct: the answer never depends on the hash.

use std::hash::BuildHasher;

use hashbrown::hash_table::Entry;
use hashbrown::{DefaultHashBuilder as RandomState, HashMap, HashTable};

/// Numbers kept in 4 bytes each; one that does not fit is kept aside, so
/// any `usize` is kept exactly.
#[derive(Debug, Default)]
pub(crate) struct Small {
    low: Vec<u32>,
    /// The numbers whose `low` is [`BIG`].
    big: HashMap<usize, usize>,
}

/// The mark of a number kept in [`Small::big`].
const BIG: u32 = u32::MAX;

/// The first key or entry number kept in an overflow map rather than in a
/// compact table: the first that does not fit the table's `u32`. The
/// library's unit tests lower it, so that the overflow path, which a real
/// turn reaches only past four billion keys, runs (and is checked against a
/// list) with a thousand.
#[cfg(not(test))]
const COMPACT_LIMIT: usize = u32::MAX as usize + 1;
#[cfg(test)]
const COMPACT_LIMIT: usize = 1000;

/// Number `i` as a compact table holds it, if it is below [`COMPACT_LIMIT`].
fn compact(i: usize) -> Option<u32> {
    if i < COMPACT_LIMIT {
        u32::try_from(i).ok()
    } else {
        None
    }
}

impl Small {
    /// Appends `v`.
    pub(crate) fn push(&mut self, v: usize) {
        let i = self.low.len();
        match u32::try_from(v) {
            Ok(n) if n != BIG => self.low.push(n),
            Ok(_) | Err(_) => {
                self.low.push(BIG);
                self.big.insert(i, v);
            }
        }
    }

    /// Number `i`.
    pub(crate) fn get(&self, i: usize) -> usize {
        match self.low[i] {
            BIG => self.big[&i],
            n => n as usize,
        }
    }

    /// Sets number `i` to `v`.
    pub(crate) fn set(&mut self, i: usize, v: usize) {
        if self.low[i] == BIG {
            self.big.remove(&i);
        }
        match u32::try_from(v) {
            Ok(n) if n != BIG => self.low[i] = n,
            Ok(_) | Err(_) => {
                self.low[i] = BIG;
                self.big.insert(i, v);
            }
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.low.capacity() * size_of::<u32>() + self.big.allocation_size()
    }
}

/// Distinct string keys, numbered in insertion order.
#[derive(Debug)]
pub(crate) struct Keys<S = RandomState> {
    /// Randomly seeded foldhash (tests put a colliding hasher here).
    hasher: S,
    /// Key numbers below [`COMPACT_LIMIT`], found by hash and compared in full.
    table: HashTable<u32>,
    /// Key numbers from [`COMPACT_LIMIT`] on (a turn of four billion distinct
    /// keys): kept correct, not compact.
    overflow: HashMap<Box<str>, usize>,
    /// Every key's bytes, concatenated in insertion order.
    text: String,
    /// Where each key starts in `text`; it ends where the next one starts.
    starts: Small,
}

impl<S: Default> Default for Keys<S> {
    fn default() -> Self {
        Keys {
            hasher: S::default(),
            table: HashTable::new(),
            overflow: HashMap::new(),
            text: String::new(),
            starts: Small::default(),
        }
    }
}

impl<S: BuildHasher> Keys<S> {
    /// How many distinct keys.
    pub(crate) fn len(&self) -> usize {
        self.starts.low.len()
    }

    /// Key number `i`.
    pub(crate) fn key(&self, i: usize) -> &str {
        let end = if i + 1 < self.len() {
            self.starts.get(i + 1)
        } else {
            self.text.len()
        };
        &self.text[self.starts.get(i)..end]
    }

    /// The number of `key`, if present.
    pub(crate) fn find(&self, key: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(key);
        if let Some(&i) = self.table.find(hash, |&i| self.key(i as usize) == key) {
            return Some(i as usize);
        }
        if self.overflow.is_empty() {
            None
        } else {
            self.overflow.get(key).copied()
        }
    }

    /// The number of `key`, added when new; `true` when added. The key is
    /// hashed once and its slot found once: a new key goes where the
    /// search for it ended (rule `PERF-KEYS-ONE-HASH`).
    pub(crate) fn find_or_add(&mut self, key: &str) -> (usize, bool) {
        let hash = self.hasher.hash_one(key);
        let i = self.len();
        let Keys {
            hasher,
            table,
            overflow,
            text,
            starts,
        } = self;
        let view = KeysView { text, starts };
        let slot = match table.entry(
            hash,
            |&j| view.key(j as usize) == key,
            |&j| hasher.hash_one(view.key(j as usize)),
        ) {
            Entry::Occupied(found) => return (*found.get() as usize, false),
            Entry::Vacant(slot) => slot,
        };
        if !overflow.is_empty()
            && let Some(&j) = overflow.get(key)
        {
            return (j, false);
        }
        starts.push(text.len());
        text.push_str(key);
        match compact(i) {
            Some(n) => {
                slot.insert(n);
            }
            None => {
                overflow.insert(key.into(), i);
            }
        }
        (i, true)
    }

    /// Forgets every key. A table of at most `keep` keys keeps its buffers
    /// for the next use; a bigger one is dropped, so a huge turn's memory is
    /// not kept afterwards.
    pub(crate) fn clear(&mut self, keep: usize)
    where
        S: Default,
    {
        if self.len() > keep {
            *self = Keys::default();
        } else {
            self.table.clear();
            self.overflow.clear();
            self.text.clear();
            self.starts.low.clear();
            self.starts.big.clear();
        }
    }

    /// Bytes this table holds on the heap (its buffers' capacities).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.table.allocation_size()
            + self.text.capacity()
            + self.starts.heap_bytes()
            + self.overflow.allocation_size()
            + self.overflow.keys().map(|k| k.len()).sum::<usize>()
    }
}

/// The keys of a [`Keys`] while its table is borrowed for a resize.
struct KeysView<'a> {
    text: &'a str,
    starts: &'a Small,
}

impl KeysView<'_> {
    fn key(&self, i: usize) -> &str {
        let end = if i + 1 < self.starts.low.len() {
            self.starts.get(i + 1)
        } else {
            self.text.len()
        };
        &self.text[self.starts.get(i)..end]
    }
}

/// The part of a key before its last `.` (the whole key if it has none).
fn prefix(key: &str) -> &str {
    key.rfind('.').map_or(key, |p| &key[..p])
}

/// Distinct `(prefix, split)` pairs, where a prefix is the part before the
/// last `.` of a key in a [`Keys`], each with a `u32` that starts as the
/// number after the first key's last `.`, without copying the prefix: CHECK-ID-ATTEMPT's `(tool_call_id, question_id)` pair of a
/// conforming ID `<call>.<question>.<attempt>` is its prefix split after
/// `<call>` (the split tells `a.b` + `c` from `a` + `b.c`).
#[derive(Debug)]
pub(crate) struct Prefixes<S = RandomState> {
    hasher: S,
    table: HashTable<u32>,
    /// Entries from [`COMPACT_LIMIT`] on, by `(prefix, split)`.
    overflow: HashMap<(Box<str>, usize), usize>,
    /// Per entry, the number of the key that first showed the prefix.
    keys: Small,
    /// Per entry, the split.
    splits: Small,
    /// The entries whose value is no longer the number their first key
    /// ends with (a question asked again with a higher attempt): the usual
    /// entry costs nothing here.
    raised: HashMap<usize, u32>,
}

/// The number after the last `.` of `key` (0 if there is none).
fn suffix_number(key: &str) -> u32 {
    key.rfind('.')
        .and_then(|p| key[p + 1..].parse().ok())
        .unwrap_or(0)
}

impl<S: Default> Default for Prefixes<S> {
    fn default() -> Self {
        Prefixes {
            hasher: S::default(),
            table: HashTable::new(),
            overflow: HashMap::new(),
            keys: Small::default(),
            splits: Small::default(),
            raised: HashMap::new(),
        }
    }
}

impl<S: BuildHasher> Prefixes<S> {
    /// The entry of the prefix of key number `key` of `keys` with `split`,
    /// added when new; `true` when added. Every key number given must stay
    /// in `keys` as long as this table is used.
    pub(crate) fn find_or_add<T: BuildHasher>(
        &mut self,
        keys: &Keys<T>,
        key: usize,
        split: usize,
    ) -> (usize, bool) {
        let p = prefix(keys.key(key));
        let hash = self.hasher.hash_one((split, p));
        let Prefixes {
            hasher,
            table,
            overflow,
            keys: firsts,
            splits,
            ..
        } = self;
        let same = |e: usize| splits.get(e) == split && prefix(keys.key(firsts.get(e))) == p;
        if let Some(&e) = table.find(hash, |&e| same(e as usize)) {
            return (e as usize, false);
        }
        if !overflow.is_empty()
            && let Some(&e) = overflow.get(&(Box::<str>::from(p), split))
        {
            return (e, false);
        }
        let e = firsts.low.len();
        firsts.push(key);
        splits.push(split);
        match compact(e) {
            Some(n) => {
                let firsts = &*firsts;
                let splits = &*splits;
                table.insert_unique(hash, n, |&j| {
                    let j = j as usize;
                    hasher.hash_one((splits.get(j), prefix(keys.key(firsts.get(j)))))
                });
            }
            None => {
                overflow.insert((p.into(), split), e);
            }
        }
        (e, true)
    }

    /// The value of entry `e`, whose keys are in `keys`.
    pub(crate) fn value<T: BuildHasher>(&self, keys: &Keys<T>, e: usize) -> u32 {
        match self.raised.get(&e) {
            Some(&v) => v,
            None => suffix_number(keys.key(self.keys.get(e))),
        }
    }

    /// Sets the value of entry `e`, whose keys are in `keys`.
    pub(crate) fn set<T: BuildHasher>(&mut self, keys: &Keys<T>, e: usize, v: u32) {
        if v == suffix_number(keys.key(self.keys.get(e))) {
            self.raised.remove(&e);
        } else {
            self.raised.insert(e, v);
        }
    }

    /// Bytes this table holds on the heap (its buffers' capacities).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.table.allocation_size()
            + self.keys.heap_bytes()
            + self.splits.heap_bytes()
            + self.raised.allocation_size()
            + self.overflow.allocation_size()
            + self.overflow.keys().map(|(p, _)| p.len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alloc_count::{assert_counted, held_by};
    use std::hash::{BuildHasherDefault, Hasher};

    /// Every key hashes to 0.
    #[derive(Default)]
    struct Same;
    impl Hasher for Same {
        fn finish(&self) -> u64 {
            0
        }
        fn write(&mut self, _: &[u8]) {}
    }

    /// Rule: PERF-TURN-MEMORY — distinct keys stay distinct and equal keys
    /// are found again even when every hash collides: keys are compared in
    /// full, so the table answers as a list of the keys would.
    #[test]
    fn keys_agree_with_a_list_even_when_every_hash_collides() {
        let mut keys: Keys<BuildHasherDefault<Same>> = Keys::default();
        let mut naive: Vec<String> = Vec::new();
        for k in ["a", "ab", "b", "a", "", "ba", "ab", "", "c1.q1.1", "c1.q1"] {
            let expect = naive.iter().position(|n| n == k);
            let (i, added) = keys.find_or_add(k);
            assert_eq!(added, expect.is_none(), "{k}");
            match expect {
                Some(e) => assert_eq!(i, e, "{k}"),
                None => naive.push(k.to_owned()),
            }
            assert_eq!(keys.key(i), k);
        }
        assert_eq!(keys.len(), naive.len());
        assert_eq!(keys.find("zz"), None);
    }

    /// Rule: PERF-KEYS-ONE-HASH — `find_or_add` hashes a key once and adds
    /// a new key at the slot its search ended on: on any sequence of keys
    /// (drawn from few, so most repeat), with the default hasher and with
    /// one under which every hash collides, and past the compact limit
    /// (lowered to 1000 in tests, so the overflow map is used), every key is
    /// numbered as a list of the keys numbers it, found again by `find`,
    /// and read back by `key`.
    #[test]
    fn find_or_add_numbers_keys_as_a_list_does() {
        use proptest::prelude::*;
        fn check<S: BuildHasher + Default>(ops: &[(u16, bool)]) -> Result<(), TestCaseError> {
            let mut keys: Keys<S> = Keys::default();
            let mut naive: Vec<String> = Vec::new();
            for &(k, add) in ops {
                let k = format!("call_{k}");
                let expect = naive.iter().position(|n| *n == k);
                if add {
                    let (i, added) = keys.find_or_add(&k);
                    prop_assert_eq!(added, expect.is_none(), "{}", k);
                    prop_assert_eq!(i, expect.unwrap_or(naive.len()), "{}", k);
                    if expect.is_none() {
                        naive.push(k.clone());
                    }
                    prop_assert_eq!(keys.key(i), k.as_str());
                } else {
                    prop_assert_eq!(keys.find(&k), expect, "{}", k);
                }
            }
            prop_assert_eq!(keys.len(), naive.len());
            for (i, k) in naive.iter().enumerate() {
                prop_assert_eq!(keys.find(k), Some(i));
            }
            Ok(())
        }
        let ops = prop::collection::vec((0u16..1300, prop::bool::weighted(0.8)), 0..3000);
        proptest!(ProptestConfig::with_cases(24), |(ops in ops)| {
            check::<RandomState>(&ops)?;
        });
        let few = prop::collection::vec((0u16..40, prop::bool::weighted(0.8)), 0..120);
        proptest!(ProptestConfig::with_cases(64), |(ops in few)| {
            check::<BuildHasherDefault<Same>>(&ops)?;
        });
    }

    /// Rule: PERF-TURN-MEMORY — prefixes are told apart by their split and
    /// their text, not by their hash: `a.b` + `c` and `a` + `b.c` are two
    /// `(call, question)` pairs, `c1.q1.1` and `c1.q1.2` one.
    #[test]
    fn prefixes_agree_with_a_list_even_when_every_hash_collides() {
        let mut keys: Keys<BuildHasherDefault<Same>> = Keys::default();
        let mut prefixes: Prefixes<BuildHasherDefault<Same>> = Prefixes::default();
        let mut naive: Vec<(String, usize)> = Vec::new();
        let cases = [
            ("c1.q1.1", 2),
            ("c1.q1.2", 2),
            ("a.b.c.1", 3),
            ("a.b.c.2", 1),
            ("a.b.c.3", 3),
            ("c1.q2.1", 2),
        ];
        for (id, split) in cases {
            let (k, _) = keys.find_or_add(id);
            let p = (id[..id.rfind('.').unwrap()].to_owned(), split);
            let expect = naive.iter().position(|n| *n == p);
            let (e, added) = prefixes.find_or_add(&keys, k, split);
            assert_eq!(added, expect.is_none(), "{id}");
            match expect {
                Some(x) => assert_eq!(e, x, "{id}"),
                None => naive.push(p),
            }
        }
        assert_eq!(naive.len(), 4);
        // A value starts as its first key's attempt and keeps what is set.
        let (e, _) = prefixes.find_or_add(&keys, keys.find("a.b.c.2").unwrap(), 1);
        assert_eq!(prefixes.value(&keys, e), 2);
        prefixes.set(&keys, e, 9);
        assert_eq!(prefixes.value(&keys, e), 9);
        prefixes.set(&keys, e, 2);
        assert_eq!((prefixes.value(&keys, e), prefixes.raised.len()), (2, 0));
    }

    /// Rule: PERF-TURN-MEMORY — a number that does not fit in 4 bytes is
    /// kept exactly.
    #[test]
    fn small_keeps_every_number() {
        let mut s = Small::default();
        let vals = [0, 1, u32::MAX as usize - 1, u32::MAX as usize, usize::MAX];
        for v in vals {
            s.push(v);
        }
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(s.get(i), *v);
        }
        s.set(3, 5);
        s.set(0, usize::MAX - 1);
        assert_eq!((s.get(3), s.get(0)), (5, usize::MAX - 1));
        assert_eq!(s.big.len(), 2);
        // The mark itself, set over a small number, is kept aside too.
        s.set(1, u32::MAX as usize);
        assert_eq!((s.get(1), s.big.len()), (u32::MAX as usize, 3));
    }

    /// Rule: PERF-TURN-MEMORY — `clear(keep)` keeps the buffers of a table
    /// of at most `keep` keys for the next turn and drops a bigger one's,
    /// and either way forgets every key.
    #[test]
    fn clear_keeps_the_buffers_of_at_most_keep_keys() {
        for (n, kept) in [(64, true), (65, false)] {
            let mut keys: Keys = Keys::default();
            for k in 0..n {
                keys.find_or_add(&format!("k{k}"));
            }
            let before = keys.heap_bytes();
            keys.clear(64);
            assert_eq!((keys.len(), keys.find("k0")), (0, None), "{n} keys");
            assert_eq!(keys.heap_bytes() == before, kept, "{n} keys");
            assert_eq!(keys.heap_bytes() == 0, !kept, "{n} keys");
        }
    }

    /// Rule: PERF-TURN-MEMORY — past the compact tables' limit (four
    /// billion in a real turn, lowered to 1000 in these tests) keys and
    /// prefixes go to the overflow maps and are still numbered, found and
    /// told apart as a list would: the claim "kept correct, not compact".
    #[test]
    fn keys_and_prefixes_past_the_compact_limit_are_kept_exactly() {
        let n = COMPACT_LIMIT + 50;
        let mut keys: Keys = Keys::default();
        let mut prefixes: Prefixes = Prefixes::default();
        let key = |k: usize| format!("call_{k}.q.{}", k % 5);
        for k in 0..n {
            assert_eq!(keys.find_or_add(&key(k)), (k, true));
            assert_eq!(keys.find_or_add(&key(k)), (k, false), "found again at once");
            let (e, added) = prefixes.find_or_add(&keys, k, 4);
            assert_eq!((e, added), (k, true), "a new prefix");
            assert_eq!(prefixes.find_or_add(&keys, k, 4), (k, false));
            assert_eq!(prefixes.value(&keys, e), (k % 5) as u32);
        }
        assert_eq!((keys.overflow.len(), prefixes.overflow.len()), (50, 50));
        for k in [0, COMPACT_LIMIT - 1, COMPACT_LIMIT, n - 1] {
            assert_eq!(keys.find(&key(k)), Some(k));
            assert_eq!(keys.key(k), key(k));
            assert_eq!(prefixes.find_or_add(&keys, k, 4), (k, false));
            assert!(prefixes.find_or_add(&keys, k, 5).1, "another split");
        }
        assert_eq!(keys.find("call_x.q.1"), None);
        keys.clear(0);
        assert_eq!((keys.len(), keys.find(&key(n - 1))), (0, None));
    }

    /// Rule: PERF-TURN-MEMORY — the figure a structure gives for its heap
    /// (what the memory rule and `make bench`'s row are judged by) agrees
    /// with the allocator's own count of what it holds: a `Small` of small
    /// numbers, one of big numbers (past `u32::MAX`, kept aside), a `Keys`
    /// and a `Prefixes` of 20 000 keys (past the tests' lowered
    /// [`COMPACT_LIMIT`], so the overflow maps hold most of them): exactly,
    /// since every table's figure is its allocation's size.
    #[test]
    fn heap_bytes_agree_with_the_allocator() {
        const N: usize = 20_000;
        let (held, small) = held_by(|| {
            let mut s = Small::default();
            (0..N).for_each(|v| s.push(v));
            s
        });
        assert_counted("small numbers", small.heap_bytes(), held, 1.0);
        let (held, big) = held_by(|| {
            let mut s = Small::default();
            (0..N).for_each(|v| s.push(usize::MAX - v));
            s
        });
        assert_counted("big numbers", big.heap_bytes(), held, 1.0);
        let (held, (keys, prefixes)) = held_by(|| {
            let mut keys: Keys = Keys::default();
            let mut prefixes: Prefixes = Prefixes::default();
            for k in 0..N {
                let (i, _) = keys.find_or_add(&format!("call_{}.q{k}.{}", k % 7, k % 3));
                let (e, _) = prefixes.find_or_add(&keys, i, 5);
                prefixes.set(&keys, e, 9);
            }
            (keys, prefixes)
        });
        let ((kh, _), (ph, _)) = (
            held_by(|| keys.heap_bytes()),
            held_by(|| prefixes.heap_bytes()),
        );
        assert_eq!((kh, ph), (0, 0), "counting allocates nothing");
        assert_counted(
            "keys and prefixes",
            keys.heap_bytes() + prefixes.heap_bytes(),
            held,
            1.0,
        );
    }
}
