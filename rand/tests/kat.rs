//! The bit generators against Random123's known-answer vectors, on plain values and
//! through the kernel language's interpreter (the same generic code built as a kernel).

use rocm_kernels::lang::interp::{run, Arg};
use rocm_kernels::lang::{Access, Builder, Scalar};
use rocm_rand::bits::{philox4x32, threefry2x32};
use rocm_rand::ops::Host;

struct Kat {
    name: String,
    rounds: u32,
    ctr: Vec<u32>,
    key: Vec<u32>,
    want: Vec<u32>,
}

fn kats() -> Vec<Kat> {
    include_str!("data/random123_kat.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let w: Vec<u32> = f[2..]
                .iter()
                .map(|x| u32::from_str_radix(x, 16).unwrap())
                .collect();
            let words = if f[0] == "philox4x32" { 4 } else { 2 };
            Kat {
                name: f[0].to_string(),
                rounds: f[1].parse().unwrap(),
                ctr: w[..words].to_vec(),
                key: w[words..words + 2].to_vec(),
                want: w[words + 2..].to_vec(),
            }
        })
        .collect()
}

#[test]
fn host_matches_random123() {
    let all = kats();
    assert_eq!(all.len(), 6);
    for k in all {
        let key = [k.key[0], k.key[1]];
        let got = if k.name == "philox4x32" {
            let c = [k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]];
            philox4x32(&mut Host, k.rounds, c, key).to_vec()
        } else {
            threefry2x32(&mut Host, k.rounds, [k.ctr[0], k.ctr[1]], key).to_vec()
        };
        assert_eq!(got, k.want, "{} {:08x?}", k.name, k.ctr);
    }
}

/// The same functions built into a kernel (counter and key as parameters), run by the
/// language's interpreter.
#[test]
fn kernel_matches_random123() {
    let target = "sm_90".parse().unwrap();
    for k in kats() {
        let mut b = Builder::new("kat", &target).unwrap();
        let out = b.ptr("out", Scalar::U32, Access::Write);
        let ctr: Vec<_> = (0..k.ctr.len())
            .map(|i| b.param(&format!("c{i}"), Scalar::U32))
            .collect();
        let key = [b.param("k0", Scalar::U32), b.param("k1", Scalar::U32)];
        let words = if k.name == "philox4x32" {
            philox4x32(&mut b, k.rounds, [ctr[0], ctr[1], ctr[2], ctr[3]], key).to_vec()
        } else {
            threefry2x32(&mut b, k.rounds, [ctr[0], ctr[1]], key).to_vec()
        };
        for (i, w) in words.into_iter().enumerate() {
            b.store(out, (i * 4) as u64, w);
        }
        let def = b.finish().unwrap();
        let mut args = vec![Arg::buffer(&vec![0u32; k.want.len()])];
        args.extend(k.ctr.iter().chain(&k.key).map(|&w| Arg::u32(w)));
        run(&def, [1, 1, 1], [1, 1, 1], &mut args).unwrap();
        assert_eq!(args[0].values::<u32>(), k.want, "{}", k.name);
    }
}
