//! The analysis on small programs: each rule's positive and negative case.
