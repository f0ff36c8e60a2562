//! Memref views (`subview`, `collapse_shape`, `expand_shape`, `cast`),
//! with every offset, size and stride checked: what a view op computes,
//! shared by the machine and the reference semantics (it touches no state).

use crate::program::{Operand, ViewKind};
use crate::value::{self, Val, View};

/// The view `kind` makes of `source`, with every offset, size and stride
/// checked: in bounds of the source and representable. `regs` are the
/// registers of the frame the view op runs in.
pub fn make_view(source: &View, kind: &ViewKind, regs: &[Val]) -> Result<View, String> {
    let value = |o: &Operand| match o {
        Operand::Static(v) => Ok(*v),
        Operand::Reg(r) => regs[*r as usize].as_int().ok_or_else(|| "an unset view operand".to_string()),
    };
    let too_large = || "a view whose offsets or sizes overflow 64 bits".to_string();
    let view = match kind {
        ViewKind::Same => source.clone(),
        ViewKind::Subview { offsets, sizes, strides, dropped } => {
            let mut view = View { offset: source.offset, sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            if offsets.len() != source.sizes.len() || sizes.len() != offsets.len() || strides.len() != offsets.len() {
                return Err("a subview of another rank than its source".into());
            }
            for d in 0..offsets.len() {
                let (offset, size, stride) = (value(&offsets[d])?, value(&sizes[d])?, value(&strides[d])?);
                // In i128, the last element's index cannot overflow.
                let last = offset as i128 + (size as i128 - 1) * stride as i128;
                let dim = source.sizes[d] as i128;
                let inside = |at: i128| (0..dim).contains(&at);
                let fits = if size == 0 {
                    (0..=dim).contains(&(offset as i128))
                } else {
                    inside(offset as i128) && inside(last)
                };
                if size < 0 || !fits {
                    return Err(format!(
                        "a subview [{offset} +{size} x{stride}] out of bounds of dimension {d} ({})",
                        source.sizes[d]
                    ));
                }
                let moved = offset.checked_mul(source.strides[d]).ok_or_else(too_large)?;
                view.offset = view.offset.checked_add(moved).ok_or_else(too_large)?;
                if !dropped.contains(&d) {
                    view.sizes.push(size);
                    view.strides.push(stride.checked_mul(source.strides[d]).ok_or_else(too_large)?);
                }
            }
            view
        }
        ViewKind::Collapse { groups } => {
            let mut view = View { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            for group in groups {
                if group.iter().any(|d| *d >= source.sizes.len()) {
                    return Err("a collapse_shape of dimensions its source does not have".into());
                }
                let sizes: Vec<i64> = group.iter().map(|d| source.sizes[*d]).collect();
                view.sizes.push(value::element_count(&sizes).ok_or_else(too_large)?);
                view.strides.push(group.last().map(|d| source.strides[*d]).unwrap_or(1));
            }
            view
        }
        ViewKind::Expand { groups } => {
            let mut view = View { sizes: Vec::new(), strides: Vec::new(), ..source.clone() };
            if groups.len() != source.sizes.len() {
                return Err("an expand_shape of another rank than its source".into());
            }
            for (d, sizes) in groups.iter().enumerate() {
                if value::element_count(sizes) != Some(source.sizes[d]) {
                    return Err(format!(
                        "an expand_shape of dimension {d} ({}) into sizes {sizes:?} that do not multiply to it",
                        source.sizes[d]
                    ));
                }
                let mut stride = source.strides[d];
                let mut strides = vec![0; sizes.len()];
                for (i, size) in sizes.iter().enumerate().rev() {
                    strides[i] = stride;
                    stride = stride.checked_mul(*size).ok_or_else(too_large)?;
                }
                view.sizes.extend(sizes);
                view.strides.extend(strides);
            }
            view
        }
    };
    // Every element's position (`View::nth`) then fits too.
    value::element_count(&view.sizes).ok_or_else(too_large)?;
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Scalar;

    fn frame() -> &'static [Val] {
        &[]
    }

    fn subview(offset: i64, size: i64, stride: i64) -> ViewKind {
        ViewKind::Subview {
            offsets: vec![Operand::Static(offset)],
            sizes: vec![Operand::Static(size)],
            strides: vec![Operand::Static(stride)],
            dropped: Vec::new(),
        }
    }

    #[test]
    fn subviews_at_the_edges_of_i64_are_errors_not_overflows() {
        let source = View::whole(0, Scalar::Int(32), &[16]);
        let edges = [i64::MIN, i64::MIN + 1, -1, 0, 1, 2, 15, 16, 17, 1 << 62, i64::MAX];
        for offset in edges {
            for size in edges {
                for stride in edges {
                    if let Ok(view) = make_view(&source, &subview(offset, size, stride), frame()) {
                        // Every element it names is in the buffer (a broadcast
                        // view of many elements names one).
                        let first_and_last = [view.first(), (!view.is_empty()).then(|| view.nth(view.len() - 1))];
                        assert!(
                            first_and_last.iter().flatten().all(|e| (0..16).contains(e)),
                            "{offset} {size} {stride}"
                        );
                    }
                }
            }
        }
        // Backwards, inside the buffer: allowed.
        let back = make_view(&source, &subview(15, 4, -5), frame()).unwrap();
        assert_eq!(back.elements(), vec![15, 10, 5, 0]);
    }

    #[test]
    fn collapse_and_expand_sizes_that_overflow_are_errors() {
        let source =
            View { buffer: 0, element: Scalar::Int(8), offset: 0, sizes: vec![1 << 40, 1 << 40], strides: vec![1, 1] };
        let collapse = ViewKind::Collapse { groups: vec![vec![0, 1]] };
        assert!(make_view(&source, &collapse, frame()).is_err());
        let whole = View::whole(0, Scalar::Int(8), &[6]);
        assert!(make_view(&whole, &ViewKind::Expand { groups: vec![vec![4, 2]] }, frame()).is_err());
        assert_eq!(
            make_view(&whole, &ViewKind::Expand { groups: vec![vec![3, 2]] }, frame()).unwrap().strides,
            vec![2, 1]
        );
    }
}
