//! Unit tests of the walk (lit covers each transformation on real IR).
