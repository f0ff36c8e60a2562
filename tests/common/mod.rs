//! What the property tests share.

/// The lines of `after` that are not in `before`, when `after` is `before`
/// with lines inserted (asserted).
pub fn inserted_lines(before: &str, after: &str, what: &str) -> Vec<usize> {
    let old: Vec<&str> = before.lines().collect();
    let mut i = 0;
    let mut inserted = Vec::new();
    for (j, line) in after.lines().enumerate() {
        if i < old.len() && old[i] == line {
            i += 1;
        } else {
            inserted.push(j);
        }
    }
    assert_eq!(i, old.len(), "{what}: the insert pass changed more than it inserted");
    inserted
}

/// Words of a RUN line, single quotes grouping.
// Not every test that includes this module reads RUN lines.
#[allow(dead_code)]
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}

#[test]
pub fn inserted_lines_finds_insertions() {
    assert_eq!(inserted_lines("a\nb\nc\n", "a\nx\nb\ny\nc\nz\n", "t"), vec![1, 3, 5]);
    assert_eq!(inserted_lines("a\nf\nb\n", "a\nf\nf\nb\n", "t"), vec![2]);
}
