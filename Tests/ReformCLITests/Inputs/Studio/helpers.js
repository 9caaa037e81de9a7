// Evaluated in the studio's page by drive.py before a scenario: what scenarios share.
window.studioTest = {
  $: function (id) { return document.getElementById(id); },
  sleep: function (ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); },
  // The first truthy value of `test`, polled every 50 ms for up to 30 s.
  until: async function (what, test) {
    var end = Date.now() + 30000;
    while (Date.now() < end) {
      var value = test();
      if (value) return value;
      await window.studioTest.sleep(50);
    }
    throw new Error("timed out waiting for " + what);
  },
  // Replaces the editor's text as typing would (an input event).
  type: function (text) {
    var yaml = document.getElementById("yaml");
    yaml.value = text;
    yaml.dispatchEvent(new Event("input"));
  }
};
