// Shared by test files with `include!`: a writer whose bytes can be taken
// from outside the state it was given to (what `print` wrote).

/// `st` with its standard output captured, and the capture.
fn captured(mut st: luprex_vm::raw::State) -> (luprex_vm::raw::State, Out) {
    let out = Out::default();
    st.set_stdout(Box::new(out.clone()));
    (st, out)
}

/// A writer whose bytes can be taken from outside the state.
#[derive(Clone, Default)]
struct Out(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl std::io::Write for Out {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Out {
    fn take(&self) -> String {
        String::from_utf8(std::mem::take(&mut *self.0.borrow_mut())).unwrap()
    }
}
