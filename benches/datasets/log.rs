//! `log`: 10,000 web-server access-log records.

use serde::{Deserialize, Serialize};
use wincode::{SchemaRead, SchemaWrite};

use super::{Rng, ALNUM, LOWER};

pub const RECORDS: usize = 10_000;

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    pub x0: u8,
    pub x1: u8,
    pub x2: u8,
    pub x3: u8,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq, Eq)]
pub struct Log {
    pub address: Address,
    pub identity: String,
    pub userid: String,
    pub date: String,
    pub request: String,
    pub code: u16,
    pub size: u64,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq, Eq)]
pub struct Logs {
    pub logs: Vec<Log>,
}

/// The same record with borrowed strings (zero-copy decoding).
#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogRef<'a> {
    pub address: Address,
    pub identity: &'a str,
    pub userid: &'a str,
    pub date: &'a str,
    pub request: &'a str,
    pub code: u16,
    pub size: u64,
}

#[derive(Serialize, Deserialize, SchemaWrite, SchemaRead, Clone, Debug, PartialEq, Eq)]
pub struct LogsRef<'a> {
    #[serde(borrow)]
    pub logs: Vec<LogRef<'a>>,
}

impl PartialEq<Logs> for LogsRef<'_> {
    fn eq(&self, other: &Logs) -> bool {
        self.logs.len() == other.logs.len()
            && self.logs.iter().zip(&other.logs).all(|(a, b)| {
                a.address == b.address
                    && a.identity == b.identity
                    && a.userid == b.userid
                    && a.date == b.date
                    && a.request == b.request
                    && a.code == b.code
                    && a.size == b.size
            })
    }
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const METHODS: [&str; 5] = ["GET", "GET", "GET", "POST", "HEAD"];
const EXTENSIONS: [&str; 6] = ["", "", ".html", ".png", ".js", ".css"];
const CODES: [u16; 10] = [200, 200, 200, 200, 200, 200, 301, 304, 404, 500];

fn log(rng: &mut Rng) -> Log {
    let address = Address {
        x0: rng.u8(),
        x1: rng.u8(),
        x2: rng.u8(),
        x3: rng.u8(),
    };
    let identity = if rng.bool(0.9) {
        "-".to_string()
    } else {
        let n = rng.range(4, 12) as usize;
        rng.string(LOWER, n)
    };
    let n = rng.range(4, 16) as usize;
    let userid = rng.string(ALNUM, n);
    let date = format!(
        "{:02}/{}/{}:{:02}:{:02}:{:02} {}{:04}",
        rng.range(1, 29),
        rng.pick(&MONTHS),
        rng.range(1995, 2025),
        rng.below(24),
        rng.below(60),
        rng.below(60),
        if rng.bool(0.5) { '+' } else { '-' },
        rng.below(13) * 100,
    );
    let mut path = String::new();
    for _ in 0..rng.range(1, 5) {
        path.push('/');
        let n = rng.range(3, 11) as usize;
        path.push_str(&rng.string(ALNUM, n));
    }
    path.push_str(rng.pick(&EXTENSIONS));
    let request = format!("{} {} HTTP/1.{}", rng.pick(&METHODS), path, rng.below(2));
    Log {
        address,
        identity,
        userid,
        date,
        request,
        code: rng.pick(&CODES),
        size: rng.below(100_000_000),
    }
}

pub fn generate(rng: &mut Rng) -> Logs {
    Logs {
        logs: (0..RECORDS).map(|_| log(rng)).collect(),
    }
}
