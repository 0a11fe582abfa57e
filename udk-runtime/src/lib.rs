//! Numeric kernels of udk: the Moore–Penrose inverse and the Udwadia–Kalaba
//! fundamental equation, with no symbolic dependencies.
