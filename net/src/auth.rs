//! Who a player is: a name and a secret.
//!
//! **Design.** The first join of a name registers it: the server keeps
//! only an argon2id hash of the secret with a random salt (PHC string
//! format, `argon2` crate). A later join must present a secret that
//! verifies against it; a wrong one is refused with a reason and logged
//! by the caller. The registry lives outside the Worlds (it is server
//! configuration, not world state; the salt comes from the OS, which a
//! World must never see).
//!
//! Hashing is deliberately slow (the default argon2 cost is about 20 ms of
//! one core): the TCP server verifies on a blocking-pool thread, never on
//! the tick thread; the in-process simulation and tests use
//! [`HashCost::test`].
//!
//! **Invariants.** No secret is stored or logged; a name's hash never
//! changes once registered; verification of a name never registers it
//! twice (the registry is behind a lock for the check-then-insert).

use argon2::password_hash::{rand_core::OsRng, PasswordHash, PasswordHasher, SaltString};
use argon2::{Algorithm, Argon2, Params, PasswordVerifier, Version};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// The argon2 cost.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HashCost {
    /// Memory in KiB.
    pub m_kib: u32,
    /// Iterations.
    pub t: u32,
}

impl HashCost {
    /// The argon2 crate's default (OWASP's minimum: 19 MiB, 2 passes).
    pub fn standard() -> HashCost {
        HashCost { m_kib: Params::DEFAULT_M_COST, t: Params::DEFAULT_T_COST }
    }
    /// A cheap cost for tests and simulations (not for production).
    pub fn test() -> HashCost {
        HashCost { m_kib: 64, t: 1 }
    }
}

/// Why a join was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthError {
    /// The secret does not match the registered one.
    #[error("wrong secret for player '{0}'")]
    WrongSecret(String),
    /// An empty secret.
    #[error("a secret must not be empty")]
    EmptySecret,
    /// Hashing failed (bad parameters).
    #[error("password hashing failed: {0}")]
    Hash(String),
    /// The registry file could not be written.
    #[error("cannot store the registration: {0}")]
    Store(String),
}

/// The registered players: name → PHC hash string. Shared (cheap clone).
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Mutex<BTreeMap<String, String>>>,
    cost: HashCost,
    /// Where registrations are kept (`Registry::open`), if anywhere.
    file: Option<Arc<std::path::PathBuf>>,
}

impl Registry {
    /// An empty registry hashing at `cost`.
    pub fn new(cost: HashCost) -> Registry {
        Registry { inner: Arc::default(), cost, file: None }
    }

    /// A registry kept in file `path` (created when the first player
    /// registers): one `name<TAB>PHC hash` per line. Each registration
    /// rewrites the file (a synced temporary file renamed over it) before
    /// it is accepted, so a restarted server knows every player it ever
    /// told "registered". Names never hold tabs or newlines (the engine
    /// refuses control characters in names).
    pub fn open(cost: HashCost, path: &std::path::Path) -> std::io::Result<Registry> {
        let mut map = BTreeMap::new();
        match std::fs::read_to_string(path) {
            Ok(text) => {
                for (i, line) in text.lines().enumerate() {
                    let Some((name, phc)) = line.split_once('\t') else {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::InvalidData,
                            format!("{}:{}: not `name<TAB>hash`", path.display(), i + 1),
                        ));
                    };
                    map.insert(name.to_owned(), phc.to_owned());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        Ok(Registry {
            inner: Arc::new(Mutex::new(map)),
            cost,
            file: Some(Arc::new(path.to_owned())),
        })
    }

    /// Writes the registry file (if any) with `map`.
    fn store(&self, map: &BTreeMap<String, String>) -> Result<(), AuthError> {
        let Some(path) = &self.file else { return Ok(()) };
        let mut text = String::new();
        for (name, phc) in map {
            text.push_str(name);
            text.push('\t');
            text.push_str(phc);
            text.push('\n');
        }
        let tmp = path.with_extension("tmp");
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&tmp)?;
            f.write_all(text.as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&tmp, path.as_ref())
        };
        write().map_err(|e| AuthError::Store(format!("{}: {e}", path.display())))
    }

    fn argon(&self) -> Result<Argon2<'static>, AuthError> {
        let p = Params::new(self.cost.m_kib, self.cost.t, 1, None)
            .map_err(|e| AuthError::Hash(e.to_string()))?;
        Ok(Argon2::new(Algorithm::Argon2id, Version::V0x13, p))
    }

    /// Registers `name` with `secret` if it is new, else verifies
    /// `secret`. `Ok(true)`: registered now.
    pub fn check_or_register(&self, name: &str, secret: &str) -> Result<bool, AuthError> {
        if secret.is_empty() {
            return Err(AuthError::EmptySecret);
        }
        let known = self.lock().get(name).cloned();
        if let Some(phc) = known {
            return self.verify(name, secret, &phc).map(|()| false);
        }
        let salt = SaltString::generate(&mut OsRng);
        let phc = self
            .argon()?
            .hash_password(secret.as_bytes(), &salt)
            .map_err(|e| AuthError::Hash(e.to_string()))?
            .to_string();
        let mut map = self.lock();
        match map.get(name).cloned() {
            // Registered by a racing join meanwhile: verify against that.
            Some(other) => {
                drop(map);
                self.verify(name, secret, &other).map(|()| false)
            }
            None => {
                map.insert(name.to_owned(), phc);
                if let Err(e) = self.store(&map) {
                    map.remove(name);
                    return Err(e);
                }
                Ok(true)
            }
        }
    }

    fn verify(&self, name: &str, secret: &str, phc: &str) -> Result<(), AuthError> {
        let parsed = PasswordHash::new(phc).map_err(|e| AuthError::Hash(e.to_string()))?;
        self.argon()?
            .verify_password(secret.as_bytes(), &parsed)
            .map_err(|_| AuthError::WrongSecret(name.to_owned()))
    }

    /// The stored hash of `name` (tests: it is not the secret).
    pub fn stored(&self, name: &str) -> Option<String> {
        self.lock().get(name).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, String>> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}
