//! TLS to the database, as libpq spells it in the URL: `sslmode` is
//! `disable`, `allow` or `prefer` (the default: TLS when the server offers
//! it, its certificate unchecked), `require` (TLS or no connection,
//! unchecked), `verify-ca` (the certificate must chain to the roots) or
//! `verify-full` (and name the host); `sslrootcert` is a PEM file of roots,
//! or `system` for the machine's store (default: `~/.postgresql/root.crt`).
//! A unix socket never uses TLS. rustls does the work; the URL that reaches
//! tokio-postgres keeps neither parameter (it knows only three modes).

use std::path::PathBuf;
use std::sync::Arc;

use postgres::config::SslMode;
use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres_rustls::MakeRustlsConnect;

/// How much the server's certificate is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Check {
    /// Encryption only (`allow`, `prefer`, `require`).
    None,
    /// The chain to the roots (`verify-ca`).
    Chain,
    /// The chain and the host name (`verify-full`).
    Full,
}

/// The TLS part of a store URL, taken out of it.
#[derive(Clone, Debug)]
pub(crate) struct Tls {
    mode: SslMode,
    check: Check,
    root_cert: Option<String>,
}

impl Tls {
    /// Splits libpq's `sslmode` and `sslrootcert` off `url`; returns the
    /// URL without them, or the parameter that is wrong.
    pub fn split(url: &str) -> Result<(String, Tls), String> {
        let mut tls = Tls {
            mode: SslMode::Prefer,
            check: Check::None,
            root_cert: None,
        };
        let Some((base, query)) = url.split_once('?') else {
            return Ok((url.to_owned(), tls));
        };
        let mut kept = Vec::new();
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            match key {
                "sslmode" => {
                    (tls.mode, tls.check) = match value {
                        "disable" => (SslMode::Disable, Check::None),
                        "allow" | "prefer" => (SslMode::Prefer, Check::None),
                        "require" => (SslMode::Require, Check::None),
                        "verify-ca" => (SslMode::Require, Check::Chain),
                        "verify-full" => (SslMode::Require, Check::Full),
                        other => return Err(format!("sslmode={other}")),
                    }
                }
                "sslrootcert" => tls.root_cert = Some(percent_decode(value)),
                _ => kept.push(pair),
            }
        }
        let url = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        Ok((url, tls))
    }

    pub fn mode(&self) -> SslMode {
        self.mode
    }

    /// The connector for this mode; an error says what is wrong with the
    /// roots.
    pub fn connector(&self) -> Result<MakeRustlsConnect, String> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| e.to_string())?;
        let config = match self.check {
            Check::None => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Unchecked(provider)))
                .with_no_client_auth(),
            Check::Chain | Check::Full => {
                let roots = Arc::new(self.roots()?);
                let verifier = WebPkiServerVerifier::builder_with_provider(roots, provider)
                    .build()
                    .map_err(|e| e.to_string())?;
                let verifier: Arc<dyn ServerCertVerifier> = match self.check {
                    Check::Chain => Arc::new(ChainOnly(verifier)),
                    _ => verifier,
                };
                builder
                    .dangerous()
                    .with_custom_certificate_verifier(verifier)
                    .with_no_client_auth()
            }
        };
        Ok(MakeRustlsConnect::new(config))
    }

    fn roots(&self) -> Result<RootCertStore, String> {
        let mut roots = RootCertStore::empty();
        let certs: Vec<CertificateDer<'static>> = match self.root_cert.as_deref() {
            Some("system") => rustls_native_certs::load_native_certs().certs,
            given => {
                let path = match given {
                    Some(path) => PathBuf::from(path),
                    None => std::env::var_os("HOME")
                        .map(|h| PathBuf::from(h).join(".postgresql/root.crt"))
                        .unwrap_or_default(),
                };
                CertificateDer::pem_file_iter(&path)
                    .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| {
                        format!(
                            "the root certificates {} could not be read ({e}); name them with sslrootcert=FILE, or sslrootcert=system",
                            path.display()
                        )
                    })?
            }
        };
        let (added, _) = roots.add_parsable_certificates(certs);
        if added == 0 {
            return Err("no root certificate was found for sslmode=verify-ca/verify-full".into());
        }
        Ok(roots)
    }
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(hi), Some(lo)) => {
                out.push((hi * 16 + lo) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Encryption without authentication, as libpq's `require`: any
/// certificate, but the handshake's signatures are still checked.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// libpq's `verify-ca`: the chain to the roots, whatever name the
/// certificate gives.
#[derive(Debug)]
struct ChainOnly(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        use rustls::{CertificateError, Error};
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}
