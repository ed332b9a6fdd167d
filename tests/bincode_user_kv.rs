//! A small key-value store written the way a bincode 1.x user writes it:
//! an append-only log file of commands, snapshots to a `Vec<u8>`, a
//! length-prefixed wire protocol with a size limit, and error handling that
//! matches on `*err`. The only change from the bincode version is the first
//! `use` line.

use kiln_serde::bincode;

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use bincode::Options;
use serde::{Deserialize, Serialize};

// ------------------------------------------------------------------ model

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Record {
    pub key: String,
    pub value: Vec<u8>,
    pub version: u64,
    pub tags: Vec<String>,
    pub expires_at: Option<u64>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Command {
    Put(Record),
    Delete { key: String },
    Clear,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Request {
    Get(String),
    Put(Record),
    Delete(String),
    Scan { prefix: String, limit: u32 },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Response {
    Found(Record),
    NotFound,
    Done,
    Many(Vec<Record>),
    Error(String),
}

#[derive(Serialize, Deserialize, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub generation: u32,
    pub records: BTreeMap<String, Record>,
}

#[derive(Debug)]
pub enum StoreError {
    Io(io::Error),
    Codec(bincode::Error),
    Corrupt(String),
}

impl From<io::Error> for StoreError {
    fn from(e: io::Error) -> Self {
        StoreError::Io(e)
    }
}

impl From<bincode::Error> for StoreError {
    fn from(e: bincode::Error) -> Self {
        StoreError::Codec(e)
    }
}

// ------------------------------------------------------------------ store

pub struct Store {
    path: PathBuf,
    log: BufWriter<File>,
    data: BTreeMap<String, Record>,
    generation: u32,
}

impl Store {
    /// Opens (or creates) the log and replays it.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        let mut data = BTreeMap::new();
        if path.exists() {
            let mut reader = BufReader::new(File::open(path)?);
            loop {
                match bincode::deserialize_from::<_, Command>(&mut reader) {
                    Ok(cmd) => apply(&mut data, cmd),
                    Err(err) => match *err {
                        bincode::ErrorKind::Io(ref e)
                            if e.kind() == io::ErrorKind::UnexpectedEof =>
                        {
                            break
                        }
                        bincode::ErrorKind::Io(e) => return Err(StoreError::Io(e)),
                        other => return Err(StoreError::Corrupt(other.to_string())),
                    },
                }
            }
        }
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        Ok(Store {
            path: path.to_path_buf(),
            log: BufWriter::new(file),
            data,
            generation: 0,
        })
    }

    fn append(&mut self, cmd: Command) -> bincode::Result<()> {
        bincode::serialize_into(&mut self.log, &cmd)?;
        self.log.flush()?;
        apply(&mut self.data, cmd);
        Ok(())
    }

    pub fn put(&mut self, record: Record) -> bincode::Result<()> {
        self.append(Command::Put(record))
    }

    pub fn delete(&mut self, key: &str) -> bincode::Result<()> {
        self.append(Command::Delete {
            key: key.to_string(),
        })
    }

    pub fn get(&self, key: &str) -> Option<&Record> {
        self.data.get(key)
    }

    pub fn snapshot(&mut self) -> Result<Vec<u8>, Box<bincode::ErrorKind>> {
        self.generation += 1;
        let snap = Snapshot {
            generation: self.generation,
            records: self.data.clone(),
        };
        let size = bincode::serialized_size(&snap)?;
        let bytes = bincode::serialize(&snap)?;
        assert_eq!(size as usize, bytes.len());
        Ok(bytes)
    }

    pub fn restore(bytes: &[u8]) -> bincode::Result<Snapshot> {
        bincode::deserialize(bytes)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn apply(data: &mut BTreeMap<String, Record>, cmd: Command) {
    match cmd {
        Command::Put(r) => {
            data.insert(r.key.clone(), r);
        }
        Command::Delete { key } => {
            data.remove(&key);
        }
        Command::Clear => data.clear(),
    }
}

// ------------------------------------------------------------------ wire

const MAX_FRAME: u64 = 64 * 1024;

fn wire_options() -> impl bincode::Options + Copy {
    bincode::DefaultOptions::new()
        .with_limit(MAX_FRAME)
        .with_little_endian()
        .with_fixint_encoding()
        .reject_trailing_bytes()
}

/// Frames a message: u32 length, then the body.
pub fn write_frame<W: Write, T: Serialize>(mut w: W, msg: &T) -> Result<(), StoreError> {
    let len = wire_options().serialized_size(msg)?;
    let body = wire_options().serialize(msg)?;
    debug_assert_eq!(len, body.len() as u64);
    w.write_all(&(len as u32).to_le_bytes())?;
    w.write_all(&body)?;
    Ok(())
}

/// Reads one framed message; `Ok(None)` on a clean end of stream.
pub fn read_frame<R: Read, T: serde::de::DeserializeOwned>(
    mut r: R,
) -> Result<Option<T>, StoreError> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    let len = u32::from_le_bytes(len) as u64;
    if len > MAX_FRAME {
        return Err(StoreError::Corrupt(format!("frame of {len} bytes")));
    }
    let mut body = vec![0u8; len as usize];
    r.read_exact(&mut body)?;
    Ok(Some(wire_options().deserialize(&body)?))
}

pub fn handle(store: &mut Store, req: Request) -> Response {
    match req {
        Request::Get(k) => match store.get(&k) {
            Some(r) => Response::Found(r.clone()),
            None => Response::NotFound,
        },
        Request::Put(r) => match store.put(r) {
            Ok(()) => Response::Done,
            Err(e) => Response::Error(e.to_string()),
        },
        Request::Delete(k) => match store.delete(&k) {
            Ok(()) => Response::Done,
            Err(e) => Response::Error(e.to_string()),
        },
        Request::Scan { prefix, limit } => Response::Many(
            store
                .data
                .values()
                .filter(|r| r.key.starts_with(&prefix))
                .take(limit as usize)
                .cloned()
                .collect(),
        ),
    }
}

// ------------------------------------------------------------------ tests

fn record(key: &str, n: u64) -> Record {
    Record {
        key: key.to_string(),
        value: (0..n).map(|i| i as u8).collect(),
        version: n,
        tags: vec![format!("t{n}"), "all".into()],
        expires_at: if n % 2 == 0 {
            Some(1_700_000_000 + n)
        } else {
            None
        },
    }
}

struct TempLog(PathBuf);

impl TempLog {
    fn new(name: &str) -> TempLog {
        let p = std::env::temp_dir().join(format!(
            "kiln-bincode-kv-{}-{}.log",
            std::process::id(),
            name
        ));
        let _ = std::fs::remove_file(&p);
        TempLog(p)
    }
}

impl Drop for TempLog {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn log_survives_reopen() {
    let tmp = TempLog::new("reopen");
    {
        let mut store = Store::open(&tmp.0).unwrap();
        for i in 0..50 {
            store.put(record(&format!("user/{i:03}"), i)).unwrap();
        }
        store.delete("user/007").unwrap();
        store.put(record("user/001", 99)).unwrap();
        assert_eq!(store.path(), tmp.0.as_path());
    }
    let store = Store::open(&tmp.0).unwrap();
    assert_eq!(store.data.len(), 49);
    assert!(store.get("user/007").is_none());
    assert_eq!(store.get("user/001").unwrap().version, 99);
    assert_eq!(store.get("user/042"), Some(&record("user/042", 42)));
}

#[test]
fn torn_write_at_the_end_of_the_log_is_treated_as_its_end() {
    let tmp = TempLog::new("torn");
    {
        let mut store = Store::open(&tmp.0).unwrap();
        store.put(record("a", 3)).unwrap();
        store.put(record("b", 4)).unwrap();
    }
    // A crash in the middle of an append leaves half a command behind.
    let half = bincode::serialize(&Command::Put(record("c", 200))).unwrap();
    let mut f = OpenOptions::new().append(true).open(&tmp.0).unwrap();
    f.write_all(&half[..half.len() / 2]).unwrap();
    drop(f);
    let store = Store::open(&tmp.0).unwrap();
    assert_eq!(store.data.len(), 2);
    assert!(store.get("c").is_none());
}

#[test]
fn corrupt_log_is_reported() {
    let tmp = TempLog::new("corrupt");
    // Command::Put, then a record whose expires_at tag is 9.
    let mut bytes = bincode::serialize(&Command::Put(record("k", 1))).unwrap();
    let tag_at = bytes.len() - 1;
    assert_eq!(bytes[tag_at], 0, "expires_at: None");
    bytes[tag_at] = 9;
    std::fs::write(&tmp.0, &bytes).unwrap();
    match Store::open(&tmp.0) {
        Err(StoreError::Corrupt(msg)) => assert!(msg.contains("found 9"), "{msg}"),
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("opened a corrupt log"),
    }
}

#[test]
fn snapshot_to_vec_and_back() {
    let tmp = TempLog::new("snapshot");
    let mut store = Store::open(&tmp.0).unwrap();
    for i in 0..10 {
        store.put(record(&format!("k{i}"), i * 10)).unwrap();
    }
    let bytes = store.snapshot().unwrap();
    let snap = Store::restore(&bytes).unwrap();
    assert_eq!(snap.generation, 1);
    assert_eq!(snap.records, store.data);
    // bincode::deserialize tolerates trailing bytes (e.g. a padded page).
    let mut padded = bytes.clone();
    padded.resize(bytes.len() + 512, 0);
    assert_eq!(Store::restore(&padded).unwrap(), snap);
    // A truncated snapshot is an io UnexpectedEof.
    let err = Store::restore(&bytes[..bytes.len() - 3]).unwrap_err();
    match *err {
        bincode::ErrorKind::Io(ref e) => assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof),
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn request_response_over_a_byte_pipe() {
    let tmp = TempLog::new("wire");
    let mut store = Store::open(&tmp.0).unwrap();
    let requests = vec![
        Request::Put(record("cfg/a", 4)),
        Request::Put(record("cfg/b", 5)),
        Request::Put(record("other", 6)),
        Request::Get("cfg/a".into()),
        Request::Get("missing".into()),
        Request::Scan {
            prefix: "cfg/".into(),
            limit: 10,
        },
        Request::Delete("cfg/a".into()),
        Request::Get("cfg/a".into()),
    ];
    let mut pipe = Vec::new();
    for r in &requests {
        write_frame(&mut pipe, r).unwrap();
    }
    let mut input = &pipe[..];
    let mut replies = Vec::new();
    while let Some(req) = read_frame::<_, Request>(&mut input).unwrap() {
        replies.push(handle(&mut store, req));
    }
    assert_eq!(replies.len(), requests.len());
    assert_eq!(replies[3], Response::Found(record("cfg/a", 4)));
    assert_eq!(replies[4], Response::NotFound);
    match &replies[5] {
        Response::Many(v) => assert_eq!(v.len(), 2),
        other => panic!("{other:?}"),
    }
    assert_eq!(replies[7], Response::NotFound);

    // Responses back the other way.
    let mut back = Vec::new();
    for r in &replies {
        write_frame(&mut back, r).unwrap();
    }
    let mut input = &back[..];
    let mut decoded = Vec::new();
    while let Some(r) = read_frame::<_, Response>(&mut input).unwrap() {
        decoded.push(r);
    }
    assert_eq!(decoded, replies);
}

#[test]
fn oversized_messages_hit_the_size_limit() {
    let big = Request::Put(record("huge", 70_000));
    match write_frame(Vec::new(), &big) {
        Err(StoreError::Codec(e)) => assert!(matches!(*e, bincode::ErrorKind::SizeLimit)),
        other => panic!("{other:?}"),
    }
    // A frame whose body carries a byte more than the value is rejected.
    let mut body = bincode::serialize(&Request::Get("x".into())).unwrap();
    body.push(0);
    let mut frame = (body.len() as u32).to_le_bytes().to_vec();
    frame.extend_from_slice(&body);
    match read_frame::<_, Request>(&frame[..]) {
        Err(StoreError::Codec(e)) => match *e {
            bincode::ErrorKind::Custom(ref m) => assert!(m.contains("remaining")),
            ref other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
}
