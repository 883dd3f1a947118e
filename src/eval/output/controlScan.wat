;; controlScan.ts's scanner (its bytes are there, base64): the first control character in a
;; text written into memory as Latin-1, sixteen bytes at a time. Rebuild with
;;   wat2wasm src/eval/output/controlScan.wat --output=- | base64 -w0
;; (test/unit/controlScan.test.ts checks that the bytes are this file's.)
(module
  (memory (export "memory") 1)
  ;; The first byte before $len that is a control character: 0x00-0x08, 0x0b, 0x0c, 0x0e-0x1f,
  ;; 0x7f-0x9f, and 0x0d unless $crOk; -1 if there is none.
  (func (export "findControl") (param $len i32) (param $crOk i32) (result i32)
    (local $i i32) (local $v v128) (local $hit v128) (local $keep v128) (local $b i32)
    (local.set $i (i32.const 0))
    (block $done
      (loop $simd
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 16)) (local.get $len)))
        (local.set $v (v128.load (local.get $i)))
        ;; below 0x20 but no control: tab, newline, and CR when $crOk
        (local.set $keep
          (v128.or
            (v128.or
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 9)))
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 10))))
            (v128.and
              (i8x16.eq (local.get $v) (i8x16.splat (i32.const 13)))
              (i8x16.splat (i32.sub (i32.const 0) (local.get $crOk))))))
        (local.set $hit
          (v128.or
            (v128.andnot (i8x16.lt_u (local.get $v) (i8x16.splat (i32.const 32))) (local.get $keep))
            (i8x16.lt_u (i8x16.sub (local.get $v) (i8x16.splat (i32.const 127))) (i8x16.splat (i32.const 33)))))
        (if (v128.any_true (local.get $hit))
          (then (return (i32.add (local.get $i) (i32.ctz (i8x16.bitmask (local.get $hit)))))))
        (local.set $i (i32.add (local.get $i) (i32.const 16)))
        (br $simd)))
    (block $end
      (loop $tail
        (br_if $end (i32.ge_u (local.get $i) (local.get $len)))
        (local.set $b (i32.load8_u (local.get $i)))
        (if (i32.or
              (i32.and
                (i32.lt_u (local.get $b) (i32.const 32))
                (i32.and
                  (i32.and (i32.ne (local.get $b) (i32.const 9)) (i32.ne (local.get $b) (i32.const 10)))
                  (i32.or (i32.ne (local.get $b) (i32.const 13)) (i32.eqz (local.get $crOk)))))
              (i32.lt_u (i32.sub (local.get $b) (i32.const 127)) (i32.const 33)))
          (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $tail)))
    (i32.const -1)))
