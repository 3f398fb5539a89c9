// The approvals page: sign the text shown with the approver's own key, in the browser.
// The key file (as `ledger principals add` or `keygen` writes it) is read here and never sent:
// its passphrase, if it has one, opens it with PBKDF2-SHA256 and AES-256-GCM; the text shown
// in #payload is hashed (SHA-256) and the message "table-ledger/approval/1 <hex>" is signed
// with Ed25519, all in WebCrypto; only the signature goes to the ledger, which checks it with
// the principal's key in the register.
(function () {
  "use strict";
  var form = document.getElementById("approve-form");
  if (!form) { return; }
  var status = document.getElementById("sign-status");
  var PKCS8_PREFIX = [0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                      0x04, 0x22, 0x04, 0x20];

  function hex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }
  function bytes(text) {
    var out = new Uint8Array(text.length / 2);
    for (var i = 0; i < out.length; i++) { out[i] = parseInt(text.substr(i * 2, 2), 16); }
    return out;
  }
  function say(text, bad) {
    status.textContent = text;
    status.className = bad ? "problem" : "hint";
  }
  function readFile(file) {
    return new Promise(function (resolve, reject) {
      var reader = new FileReader();
      reader.onload = function () { resolve(reader.result); };
      reader.onerror = function () { reject(new Error("the key file cannot be read")); };
      reader.readAsText(file);
    });
  }
  function seedOf(data, passphrase) {
    var subtle = window.crypto.subtle;
    if (data.private_key) {
      return Promise.resolve(bytes(String(data.private_key).replace("ed25519-private:", "")));
    }
    var sealed = data.encrypted;
    if (!passphrase) { return Promise.reject(new Error("this key file needs its passphrase")); }
    return subtle.importKey("raw", new TextEncoder().encode(passphrase), "PBKDF2", false,
                            ["deriveKey"])
      .then(function (base) {
        return subtle.deriveKey({ name: "PBKDF2", hash: "SHA-256", salt: bytes(sealed.salt),
                                  iterations: sealed.iterations },
                                base, { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
      })
      .then(function (key) {
        return subtle.decrypt({ name: "AES-GCM", iv: bytes(sealed.nonce),
                                additionalData: new TextEncoder().encode(data.public_key) },
                              key, bytes(sealed.ciphertext));
      })
      .then(function (seed) { return new Uint8Array(seed); },
            function () { throw new Error("the passphrase does not open this key file"); });
  }

  form.addEventListener("submit", function (event) {
    if (document.getElementById("signature").value) { return; }  // signed: send it
    event.preventDefault();
    var file = document.getElementById("key-file").files[0];
    if (!file) { say("Choose your key file first.", true); return; }
    if (!window.crypto || !window.crypto.subtle) {
      say("This browser has no WebCrypto here (it needs HTTPS or localhost).", true);
      return;
    }
    var subtle = window.crypto.subtle;
    var text = document.getElementById("payload").textContent;
    var data;
    say("Signing…", false);
    readFile(file).then(function (content) {
      data = JSON.parse(content);
      if (data.format !== "table-ledger principal key 1") {
        throw new Error("this is not a principal's key file");
      }
      if (data.principal !== form.getAttribute("data-principal")) {
        throw new Error("this key file is " + data.principal + "'s, not " +
                        form.getAttribute("data-principal") + "'s");
      }
      if (data.public_key !== form.getAttribute("data-public-key")) {
        throw new Error("this key is not the one the register holds for " + data.principal);
      }
      return seedOf(data, document.getElementById("passphrase").value);
    }).then(function (seed) {
      var pkcs8 = new Uint8Array(PKCS8_PREFIX.length + seed.length);
      pkcs8.set(PKCS8_PREFIX);
      pkcs8.set(seed, PKCS8_PREFIX.length);
      return subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]);
    }).then(function (key) {
      return subtle.digest("SHA-256", new TextEncoder().encode(text)).then(function (digest) {
        var message = "table-ledger/approval/1 " + hex(digest);
        return subtle.sign({ name: "Ed25519" }, key, new TextEncoder().encode(message));
      });
    }).then(function (signature) {
      document.getElementById("signature").value = hex(signature);
      document.getElementById("passphrase").value = "";
      say("Signed; sending the signature.", false);
      form.submit();
    }).catch(function (error) {
      say("Not signed: " + (error && error.message ? error.message : String(error)), true);
    });
  });
}());
