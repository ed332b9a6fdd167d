//! `bincode::deserialize_from` on a real `TcpStream` (127.0.0.1): several
//! messages back to back, then the peer closes and the reader sees
//! `Io(UnexpectedEof)`, the signal bincode users rely on for "connection
//! closed".

use std::io::{self, BufReader, BufWriter, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use kiln_serde::bincode::{self, ErrorKind, Options};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, PartialEq, Debug, Clone)]
enum Msg {
    Hello { name: String, version: u32 },
    Data(Vec<u8>),
    Ping(u64),
    Bye,
}

fn messages() -> Vec<Msg> {
    let mut v = vec![Msg::Hello {
        name: "client".into(),
        version: 3,
    }];
    for i in 0..40u64 {
        v.push(Msg::Ping(i));
        v.push(Msg::Data(vec![i as u8; (i * 97) as usize]));
    }
    v.push(Msg::Bye);
    v
}

/// Connects a client thread that runs `send` and returns the server side.
fn pair<F>(send: F) -> (TcpStream, thread::JoinHandle<()>)
where
    F: FnOnce(TcpStream) + Send + 'static,
{
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = thread::spawn(move || {
        let stream = TcpStream::connect(addr).unwrap();
        send(stream);
    });
    let (server, _) = listener.accept().unwrap();
    server
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    (server, client)
}

/// Reads until an error, at most `max` messages.
fn read_all<R: io::Read>(mut r: R, max: usize) -> (Vec<Msg>, bincode::Error) {
    let mut got = Vec::new();
    for _ in 0..=max {
        match bincode::deserialize_from::<_, Msg>(&mut r) {
            Ok(m) => got.push(m),
            Err(e) => return (got, e),
        }
    }
    panic!("more than {max} messages");
}

fn is_eof(err: &bincode::Error) -> bool {
    matches!(**err, ErrorKind::Io(ref e) if e.kind() == io::ErrorKind::UnexpectedEof)
}

#[test]
fn messages_then_clean_close() {
    let msgs = messages();
    let sent = msgs.clone();
    let (server, client) = pair(move |stream| {
        let mut w = BufWriter::new(stream);
        for m in &sent {
            bincode::serialize_into(&mut w, m).unwrap();
        }
        w.flush().unwrap();
        w.get_ref().shutdown(Shutdown::Write).unwrap();
    });
    let (got, err) = read_all(&server, msgs.len() + 1);
    client.join().unwrap();
    assert_eq!(got, msgs);
    assert!(is_eof(&err), "{err:?}");
}

#[test]
fn unbuffered_writes_and_buffered_reads() {
    let msgs = messages();
    let sent = msgs.clone();
    let (server, client) = pair(move |mut stream| {
        // Each value in several small writes: the reader sees short reads.
        for m in &sent {
            let bytes = bincode::serialize(m).unwrap();
            for chunk in bytes.chunks(5) {
                stream.write_all(chunk).unwrap();
            }
        }
        stream.shutdown(Shutdown::Write).unwrap();
    });
    let (got, err) = read_all(BufReader::new(server), msgs.len() + 1);
    client.join().unwrap();
    assert_eq!(got, msgs);
    assert!(is_eof(&err), "{err:?}");
}

#[test]
fn peer_closing_inside_a_message_is_unexpected_eof() {
    let (server, client) = pair(|mut stream| {
        bincode::serialize_into(&mut stream, &Msg::Ping(1)).unwrap();
        let bytes = bincode::serialize(&Msg::Data(vec![7; 1000])).unwrap();
        stream.write_all(&bytes[..bytes.len() / 2]).unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
    });
    let (got, err) = read_all(&server, 4);
    client.join().unwrap();
    assert_eq!(got, [Msg::Ping(1)]);
    assert!(is_eof(&err), "{err:?}");
}

#[test]
fn limited_reader_on_a_socket() {
    let (server, client) = pair(|mut stream| {
        bincode::serialize_into(&mut stream, &Msg::Ping(2)).unwrap();
        bincode::serialize_into(&mut stream, &Msg::Data(vec![1; 5000])).unwrap();
        stream.shutdown(Shutdown::Write).unwrap();
    });
    let opts = bincode::options().with_limit(1024);
    let mut r = &server;
    let first: Msg = opts.deserialize_from(&mut r).unwrap();
    assert_eq!(first, Msg::Ping(2));
    let err = opts.deserialize_from::<_, Msg>(&mut r).unwrap_err();
    assert!(matches!(*err, ErrorKind::SizeLimit), "{err:?}");
    client.join().unwrap();
}
