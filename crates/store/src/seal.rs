//! Credentials at rest: AES-256-GCM per field, a fresh nonce each time, the row id and field
//! name as associated data (a sealed value moved to another row or field does not open), and
//! key ids so keys can be rotated.

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::STANDARD as B64;
use rand::RngCore;
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Write;
use std::path::Path;

const FORMAT: &str = "v1";

#[derive(Debug, thiserror::Error)]
pub enum SealError {
    #[error("SWITCHBOARD_MASTER_KEY must be 32 bytes as 64 hex characters or base64")]
    BadMasterKey,
    #[error("key file {path}: {message}")]
    KeyFile { path: String, message: String },
    #[error("sealed value is malformed")]
    Malformed,
    #[error("sealed with key {0}, which is not in the key ring")]
    UnknownKey(String),
    #[error("sealed value does not open here (wrong key, row or field)")]
    DoesNotOpen,
}

struct Key {
    id: String,
    cipher: Aes256Gcm,
    bytes: [u8; 32],
}

/// The key ring: every key that may have sealed something, the last one sealing new values.
pub struct Sealer {
    keys: Vec<Key>,
}

impl fmt::Debug for Sealer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids: Vec<&str> = self.keys.iter().map(|k| k.id.as_str()).collect();
        f.debug_struct("Sealer").field("key_ids", &ids).finish()
    }
}

fn key_id(bytes: &[u8; 32]) -> String {
    hex::encode(&Sha256::digest(bytes)[..4])
}

fn decode_key(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    let bytes = hex::decode(text).ok().or_else(|| B64.decode(text).ok())?;
    bytes.try_into().ok()
}

impl Sealer {
    pub fn from_keys(keys: Vec<[u8; 32]>) -> Self {
        let keys = keys
            .into_iter()
            .map(|bytes| Key {
                id: key_id(&bytes),
                cipher: Aes256Gcm::new(&bytes.into()),
                bytes,
            })
            .collect();
        Self { keys }
    }

    /// `SWITCHBOARD_MASTER_KEY` when set, else the key file at `path` (created with mode 0600
    /// and a random key on first run).
    pub fn load(master_key: Option<&str>, path: &Path) -> Result<Self, SealError> {
        if let Some(text) = master_key {
            let key = decode_key(text).ok_or(SealError::BadMasterKey)?;
            return Ok(Self::from_keys(vec![key]));
        }
        let file_err = |message: String| SealError::KeyFile {
            path: path.display().to_string(),
            message,
        };
        if !path.exists() {
            Self::append_key_file(path, &random_key()).map_err(|e| file_err(e.to_string()))?;
            tracing::info!(path = %path.display(), "created a new master key file (mode 0600)");
        }
        let text = std::fs::read_to_string(path).map_err(|e| file_err(e.to_string()))?;
        let keys: Option<Vec<[u8; 32]>> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(decode_key)
            .collect();
        match keys {
            Some(keys) if !keys.is_empty() => Ok(Self::from_keys(keys)),
            _ => Err(file_err(
                "expected one 32-byte key (hex or base64) per line".into(),
            )),
        }
    }

    /// Adds a fresh key to the key file; it seals everything from now on.
    pub fn rotate_key_file(path: &Path) -> Result<String, SealError> {
        let key = random_key();
        Self::append_key_file(path, &key).map_err(|e| SealError::KeyFile {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Ok(key_id(&key))
    }

    fn append_key_file(path: &Path, key: &[u8; 32]) -> std::io::Result<()> {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o600)
            .open(path)?;
        writeln!(file, "{}", hex::encode(key))
    }

    /// The id of the key that seals new values.
    pub fn current_key_id(&self) -> &str {
        &self.keys[self.keys.len() - 1].id
    }

    /// Key material for the audit chain's MAC: derived from the first key, which is never
    /// rotated out, so the chain stays verifiable across rotations.
    pub fn audit_key(&self) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(b"switchboard audit chain v1\0");
        hasher.update(self.keys[0].bytes);
        hasher.finalize().into()
    }

    fn aad(row_id: &str, field: &str) -> Vec<u8> {
        [row_id.as_bytes(), b"\0", field.as_bytes()].concat()
    }

    /// Seals `plaintext` for (`row_id`, `field`): `v1.<key id>.<base64(nonce | ciphertext)>`.
    pub fn seal(&self, row_id: &str, field: &str, plaintext: &str) -> String {
        let key = &self.keys[self.keys.len() - 1];
        let mut nonce = [0u8; 12];
        rand::rng().fill_bytes(&mut nonce);
        let aad = Self::aad(row_id, field);
        let sealed = key
            .cipher
            .encrypt(
                Nonce::from_slice(&nonce),
                Payload {
                    msg: plaintext.as_bytes(),
                    aad: &aad,
                },
            )
            .unwrap_or_default();
        let mut blob = nonce.to_vec();
        blob.extend(sealed);
        format!("{FORMAT}.{}.{}", key.id, B64.encode(blob))
    }

    pub fn open(&self, row_id: &str, field: &str, sealed: &str) -> Result<String, SealError> {
        let mut parts = sealed.splitn(3, '.');
        let (Some(FORMAT), Some(kid), Some(body)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(SealError::Malformed);
        };
        let key = self
            .keys
            .iter()
            .find(|k| k.id == kid)
            .ok_or_else(|| SealError::UnknownKey(kid.to_string()))?;
        let blob = B64.decode(body).map_err(|_| SealError::Malformed)?;
        if blob.len() < 12 {
            return Err(SealError::Malformed);
        }
        let (nonce, ciphertext) = blob.split_at(12);
        let aad = Self::aad(row_id, field);
        let plain = key
            .cipher
            .decrypt(
                Nonce::from_slice(nonce),
                Payload {
                    msg: ciphertext,
                    aad: &aad,
                },
            )
            .map_err(|_| SealError::DoesNotOpen)?;
        String::from_utf8(plain).map_err(|_| SealError::DoesNotOpen)
    }

    /// Whether `sealed` was sealed with an older key.
    pub fn is_stale(&self, sealed: &str) -> bool {
        sealed.split('.').nth(1) != Some(self.current_key_id())
    }
}

fn random_key() -> [u8; 32] {
    let mut key = [0u8; 32];
    rand::rng().fill_bytes(&mut key);
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sealer() -> Sealer {
        Sealer::from_keys(vec![[7u8; 32]])
    }

    #[test]
    fn sealed_values_open_only_for_their_row_and_field() {
        let s = sealer();
        let sealed = s.seal("row-1", "token", "s3cret-token");
        assert!(!sealed.contains("s3cret"));
        assert_eq!(s.open("row-1", "token", &sealed).unwrap(), "s3cret-token");
        assert!(matches!(
            s.open("row-2", "token", &sealed),
            Err(SealError::DoesNotOpen)
        ));
        assert!(matches!(
            s.open("row-1", "refresh", &sealed),
            Err(SealError::DoesNotOpen)
        ));
    }

    #[test]
    fn every_seal_uses_a_fresh_nonce() {
        let s = sealer();
        assert_ne!(s.seal("r", "f", "same"), s.seal("r", "f", "same"));
    }

    #[test]
    fn rotation_keeps_old_values_open_and_marks_them_stale() {
        let old = Sealer::from_keys(vec![[1u8; 32]]);
        let sealed = old.seal("r", "f", "v");
        let rotated = Sealer::from_keys(vec![[1u8; 32], [2u8; 32]]);
        assert_eq!(rotated.open("r", "f", &sealed).unwrap(), "v");
        assert!(rotated.is_stale(&sealed));
        assert!(!rotated.is_stale(&rotated.seal("r", "f", "v")));
        assert_eq!(old.audit_key(), rotated.audit_key());
    }

    #[test]
    fn the_key_file_is_created_private_and_reused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys").join("master.key");
        let first = Sealer::load(None, &path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let again = Sealer::load(None, &path).unwrap();
        assert_eq!(first.current_key_id(), again.current_key_id());
        let new_id = Sealer::rotate_key_file(&path).unwrap();
        assert_eq!(Sealer::load(None, &path).unwrap().current_key_id(), new_id);
        assert!(Sealer::load(Some("not a key"), &path).is_err());
        assert!(format!("{first:?}").contains(first.current_key_id()));
    }
}
