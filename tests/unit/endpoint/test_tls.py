"""The endpoint client and the preflight check verify with one TLS context per process."""

import ssl

from evalui.endpoint.tls import shared_tls_context


def test_one_verifying_context_with_a_real_trust_store():
    context = shared_tls_context()
    assert context is shared_tls_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 50  # certifi's bundle, not an empty store
