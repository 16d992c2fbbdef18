//! A real etcd on loopback for the tests: free ports, a temporary data folder, killed when
//! dropped. Under CI=true an etcd that cannot start fails the test; elsewhere the test says so
//! on stderr and passes without running (install Debian's `etcd-server`).

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh directory for one test's files, under cargo's scratch directory for integration tests
/// (target/tmp) rather than the system's: the same test reuses its directory on the next run, so
/// nothing piles up.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{}-{name}", env!("CARGO_CRATE_NAME")));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub struct EtcdServer {
    child: Option<Child>,
    pub dir: PathBuf,
    pub client_port: u16,
    peer_port: u16,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl EtcdServer {
    /// Starts an etcd, or returns `None` (outside CI) when there is no etcd binary.
    pub fn start(name: &str) -> Option<EtcdServer> {
        let dir = scratch(&format!("etcd-{name}"));
        let mut server = EtcdServer {
            child: None,
            dir,
            client_port: free_port(),
            peer_port: free_port(),
        };
        match server.spawn() {
            Ok(()) => Some(server),
            Err(why) if std::env::var("CI").as_deref() == Ok("true") => {
                panic!("etcd could not start under CI=true: {why}")
            }
            Err(why) => {
                eprintln!("SKIPPED (not under CI): etcd could not start: {why}");
                None
            }
        }
    }

    pub fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.client_port)
    }

    fn spawn(&mut self) -> Result<(), String> {
        let client = self.endpoint();
        let peer = format!("http://127.0.0.1:{}", self.peer_port);
        let log = std::fs::File::create(self.dir.join("etcd.log")).map_err(|e| e.to_string())?;
        let child = Command::new("etcd")
            .args(["--name", "default", "--data-dir"])
            .arg(self.dir.join("data"))
            .args([
                "--listen-client-urls",
                &client,
                "--advertise-client-urls",
                &client,
            ])
            .args([
                "--listen-peer-urls",
                &peer,
                "--initial-advertise-peer-urls",
                &peer,
            ])
            .args(["--initial-cluster", &format!("default={peer}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("etcd: {e}"))?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        let etcd = hrwhash_live::etcd::Etcd::new(&client).unwrap();
        while Instant::now() < deadline {
            if etcd.get(b"/ready").is_ok() {
                return Ok(());
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(Child::try_wait) {
                return Err(format!(
                    "etcd exited ({status}); see {}",
                    self.dir.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        self.kill();
        Err("etcd did not answer within 20 s".into())
    }

    /// Kills etcd (SIGKILL: no goodbye to its clients).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts etcd again on the same ports and data.
    pub fn restart(&mut self) {
        self.kill();
        self.spawn().expect("etcd restarts");
    }
}

impl Drop for EtcdServer {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Waits until `done` or 20 s; false when it never was.
pub fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    false
}
