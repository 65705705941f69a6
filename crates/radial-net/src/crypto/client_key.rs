//! A client's own key, for servers that admit only listed clients (a
//! stream server with an allow list, such as a tunnel's). The handshake
//! authenticates the server alone; a client that must be known proves
//! itself afterwards, inside the sealed channel, with an Ed25519 signature
//! over the handshake's hash ([`Keys::binding`](super::Keys::binding)) and
//! its connection number: the proof holds for this connection only, so a
//! server (or anyone who saw it) cannot replay it on another.

use std::io;
use std::path::Path;

use ring::rand::SystemRandom;
use ring::signature::{Ed25519KeyPair, KeyPair, UnparsedPublicKey, ED25519};

use super::{create_secret, hex};

/// What a signature covers before the binding and the connection number.
const CONTEXT: &[u8] = b"radial stream client v1";

/// A client's Ed25519 key pair.
pub struct ClientKey {
    pair: Ed25519KeyPair,
}

impl std::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ClientKey({})", hex(&self.public()))
    }
}

/// A client's proof that it holds the key it names, for one connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClientProof {
    /// The client's public key.
    pub key: [u8; 32],
    /// Its signature over the connection's binding and number.
    pub signature: [u8; 64],
}

fn signed(binding: &[u8; 32], conn: u16) -> Vec<u8> {
    let mut m = Vec::with_capacity(CONTEXT.len() + 34);
    m.extend_from_slice(CONTEXT);
    m.extend_from_slice(binding);
    m.extend_from_slice(&conn.to_be_bytes());
    m
}

impl ClientKey {
    /// A fresh key pair and its PKCS#8 document.
    fn generate() -> (ClientKey, Vec<u8>) {
        let doc = Ed25519KeyPair::generate_pkcs8(&SystemRandom::new())
            .expect("the system's random generator");
        let pkcs8 = doc.as_ref().to_vec();
        let pair = Ed25519KeyPair::from_pkcs8(&pkcs8).expect("a key just generated");
        (ClientKey { pair }, pkcs8)
    }

    /// A fresh key pair that is not stored anywhere.
    pub fn ephemeral() -> ClientKey {
        ClientKey::generate().0
    }

    /// The public key servers list.
    pub fn public(&self) -> [u8; 32] {
        self.pair
            .public_key()
            .as_ref()
            .try_into()
            .expect("an Ed25519 public key is 32 bytes")
    }

    /// Reads the key pair from `path` (one hex line, its PKCS#8 document),
    /// or creates it there, readable by its owner only.
    pub fn load_or_create(path: &Path) -> io::Result<ClientKey> {
        match std::fs::read_to_string(path) {
            Ok(text) => {
                let bad = || {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("{}: not a radial client key", path.display()),
                    )
                };
                let pkcs8 = unhex_any(text.trim()).ok_or_else(bad)?;
                let pair = Ed25519KeyPair::from_pkcs8(&pkcs8).map_err(|_| bad())?;
                Ok(ClientKey { pair })
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (key, pkcs8) = ClientKey::generate();
                if create_secret(path, &format!("{}\n", hex(&pkcs8)))? {
                    Ok(key)
                } else {
                    ClientKey::load_or_create(path)
                }
            }
            Err(e) => Err(e),
        }
    }

    /// The proof for connection number `conn` of the handshake `binding`.
    pub fn prove(&self, binding: &[u8; 32], conn: u16) -> ClientProof {
        let sig = self.pair.sign(&signed(binding, conn));
        ClientProof {
            key: self.public(),
            signature: sig.as_ref().try_into().expect("64 bytes"),
        }
    }
}

impl ClientProof {
    /// True when the signature is the key's over this connection.
    pub fn verify(&self, binding: &[u8; 32], conn: u16) -> bool {
        UnparsedPublicKey::new(&ED25519, self.key)
            .verify(&signed(binding, conn), &self.signature)
            .is_ok()
    }
}

/// The bytes of lower-case or upper-case hex `s`.
fn unhex_any(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proof_holds_for_its_connection_only() {
        let k = ClientKey::ephemeral();
        let binding = [7u8; 32];
        let p = k.prove(&binding, 5);
        assert_eq!(p.key, k.public());
        assert!(p.verify(&binding, 5));
        assert!(!p.verify(&binding, 6), "another connection number");
        assert!(!p.verify(&[8u8; 32], 5), "another handshake");
        let mut forged = p;
        forged.key = ClientKey::ephemeral().public();
        assert!(!forged.verify(&binding, 5), "another key");
    }

    #[test]
    fn a_stored_key_is_the_same_key_when_read_back() {
        let dir = std::env::temp_dir().join(format!("radial-client-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("client.key");
        let a = ClientKey::load_or_create(&path).unwrap();
        let b = ClientKey::load_or_create(&path).unwrap();
        assert_eq!(a.public(), b.public());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        std::fs::write(&path, "zz\n").unwrap();
        let e = ClientKey::load_or_create(&path).unwrap_err();
        assert!(e.to_string().contains("not a radial client key"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
