#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Images through the [`Agent`] API: refused up front for a model without
//! image input (nothing queued, nothing sent, nothing stored), accepted
//! after a switch to one that has it.

use crate::support;

use std::sync::Arc;

use light_agent::agent::AgentError;
use light_agent::agent::image::Image;
use light_agent::ai::Adaptor;
use light_agent::protocol::StopCause;
use support::agent_harness::{Harness, openai_adaptor};
use support::images::png;
use support::{MockModel, Reply};

fn openai(mock: &MockModel, images: bool) -> Arc<dyn Adaptor> {
    Arc::new(openai_adaptor(mock).with_image_input(images))
}

#[tokio::test]
async fn a_text_only_model_refuses_images_up_front_and_a_switch_to_one_with_images_sends_them() {
    let h = Harness::start(vec![Reply::openai_text("A square.")], |mock| {
        openai(mock, false)
    })
    .await;
    let shot = Image::from_bytes("shot.png", png(2, 2), None).unwrap();
    let mut updates = h.agent.subscribe_all();

    let refused = h.agent.submit_prompt("look", vec![shot.clone()]);
    assert_eq!(
        refused,
        Err(AgentError::ImagesNotAccepted {
            model: "mock-model".into()
        })
    );
    assert!(updates.try_recv().is_err(), "nothing was queued");
    assert_eq!(h.mock.request_count(), 0);
    assert_eq!(h.session.manager().image_count().await.unwrap(), 0);

    h.agent.set_adaptor(openai(&h.mock, true)).unwrap();
    let outcome = h
        .agent
        .prompt_with("look", vec![shot.clone()])
        .await
        .unwrap();
    assert_eq!(outcome.cause, StopCause::Done, "{}", outcome.message);
    let content = &h.mock.requests()[0].body["messages"][1]["content"];
    assert_eq!(content[1]["type"], "image_url", "{content}");
    assert_eq!(h.session.manager().image_count().await.unwrap(), 1);
    let stored = h
        .session
        .image(&shot.reference().hash)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&stored.data[..], &shot.data()[..]);
}
